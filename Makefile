# The two commands of the README. Both install missing system packages first.
SWIFT ?= swift

# What runs a second time under ThreadSanitizer: the model actors, the SQLite load test and
# checkpointer, every store's conformance suite (its concurrent-save checks included),
# observed queries and autosave. The PostgreSQL store's suites run under ThreadSanitizer in
# `make soak`.
TSAN_FILTER ?= ModelActorConcurrencyTests|SQLiteLoadTests|SQLiteCheckpointTests|ConformanceTests|ValueTransformerTests|ResultsObserverTests|AutosaveTests

.PHONY: demo test test-tsan test-tsan-postgres soak fuzz-json system-packages

system-packages:
	@./scripts/ensure-system-packages.sh

## Build and run the SampleTrips program.
demo: system-packages
	$(SWIFT) run SampleTrips

# Each pass is stopped, and fails, when it runs past its limit, so that a test that hangs is
# reported as a failure instead of using up CI's time (a pass takes about a third of its limit).
TEST_TIMEOUT ?= 40m
TSAN_TIMEOUT ?= 30m

## Build and run the whole test suite, then the concurrent tests under ThreadSanitizer. The
## PostgresStore tests run against a throwaway PostgreSQL cluster (scripts/with-postgres.sh),
## or against the server STRATA_POSTGRES_URL names.
test: system-packages
	./scripts/with-postgres.sh timeout --kill-after=30s $(TEST_TIMEOUT) $(SWIFT) test
	$(MAKE) test-tsan

## The concurrent tests under ThreadSanitizer, in a build folder of their own; any report fails.
## Without the PostgreSQL store (see Package.swift), which `make soak` runs under ThreadSanitizer,
## and without the macro expansion tests, which have nothing concurrent. Swift's backtracer is
## off: after ThreadSanitizer's report it could not suspend the test's threads and hung.
test-tsan: system-packages
	STRATA_WITHOUT_POSTGRES=1 STRATA_WITHOUT_MACRO_TESTS=1 SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" \
		timeout --kill-after=30s $(TSAN_TIMEOUT) $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_FILTER)'

## The PostgreSQL store's suites under ThreadSanitizer, against a throwaway cluster: its pool
## and bridge under the load test's ten writers, and the conformance suite.
test-tsan-postgres: system-packages
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" ./scripts/with-postgres.sh $(SWIFT) test --sanitize=thread --scratch-path .build-tsan-postgres --filter 'Postgres'


## Longer runs than `make test` affords: the crash-safety tests kill 200 saving processes per
## store; the fuzzers load 100,000 mutated JSON documents and 10,000 damaged SQLite files; the
## differential check runs 300 seeds of random predicates and sorts against Foundation per store;
## the load tests run their ten writers for 60 seconds instead of 3 (SQLite and PostgreSQL);
## libFuzzer runs over the JSON loader; the PostgreSQL suites run under ThreadSanitizer.
soak: system-packages
	STRATA_CRASH_KILLS=200 STRATA_FUZZ_INPUTS=100000 STRATA_DIFFERENTIAL_SEEDS=300 STRATA_LOAD_SECONDS=60 ./scripts/with-postgres.sh $(SWIFT) test --filter 'CrashSafetyTests|FuzzTests|DifferentialTests|LoadTests'
	$(MAKE) fuzz-json
	$(MAKE) test-tsan-postgres

## libFuzzer over the JSON store's loader for FUZZ_SECONDS, every module built with
## AddressSanitizer and coverage in a folder of its own; a failing input is kept in .build-fuzz/artifacts.
## Leak detection is off: Foundation leaks the buffer of a zero-length Data(contentsOf:) read.
FUZZ_SECONDS ?= 300
FUZZ_LIBRARY = $(firstword $(wildcard $(dir $(shell readlink -f $$(which swift)))../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a))
fuzz-json: system-packages
	@if [ -z "$(FUZZ_LIBRARY)" ]; then echo "fuzz-json: skipped, the toolchain has no libclang_rt.fuzzer_no_main"; exit 0; fi; \
	$(SWIFT) build --package-path Fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=address \
		-Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table -Xlinker $(FUZZ_LIBRARY) -Xlinker -lstdc++ && \
	mkdir -p .build-fuzz/corpus .build-fuzz/artifacts && \
	ASAN_OPTIONS=detect_leaks=0 STRATA_FUZZ_CORPUS=.build-fuzz/corpus .build-fuzz/debug/JSONLoaderFuzzer .build-fuzz/corpus \
		-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -artifact_prefix=.build-fuzz/artifacts/
