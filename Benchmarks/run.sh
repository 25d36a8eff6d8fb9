#!/usr/bin/env bash
# Builds the benchmarks, runs the ordo-one/benchmark suite and the paired ratio report
# (with its JSON file and SVG chart), and writes them to results/. A full run at
# N = 100,000 takes several minutes on 2 cores (the ratio report alone, K = 3, about 4),
# plus the first release build.
#
#   ./run.sh [N] [K]        N trips (default 100000), K paired repetitions for the report (default 3)
#
# Environment: STRATA_BENCH_DIR keeps the seed files between runs (default: a new temporary
# directory, removed at the end); SKIP_SUITE=1 runs only the ratio report.
set -euo pipefail
cd "$(dirname "$0")"

N="${1:-100000}"
K="${2:-3}"
stamp="$(date +%Y%m%d-%H%M%S)"
mkdir -p results
suite="results/benchmark-$N-$stamp.txt"
report="results/report-$N-$stamp.md"
report_json="results/report-$N-$stamp.json"
chart="results/ratios-$N-$stamp.svg"

# The raw baseline links the system sqlite3, like Strata. ordo-one/benchmark 1.38 on
# Swift 6.3 counts mallocs with its own interposer, so jemalloc is not needed; older
# releases of the package wanted libjemalloc-dev and are not supported here.
if ! pkg-config --exists sqlite3 2>/dev/null; then
    echo "sqlite3 headers missing: installing libsqlite3-dev" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y libsqlite3-dev; else sudo apt-get install -y libsqlite3-dev; fi
fi

export STRATA_BENCH_N="$N"
if [ -z "${STRATA_BENCH_DIR:-}" ]; then
    STRATA_BENCH_DIR="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench.XXXXXX")"
    trap 'rm -rf "$STRATA_BENCH_DIR"' EXIT
fi
export STRATA_BENCH_DIR

swift build -c release
echo "== seeding $N trips in $STRATA_BENCH_DIR" >&2
.build/release/StrataPerfReport --seed --n "$N"

if [ "${SKIP_SUITE:-0}" != 1 ]; then
    echo "== ordo-one/benchmark suite (N = $N) -> $suite" >&2
    swift package benchmark --no-progress --time-units microseconds 2>&1 \
        | grep -v -E '^\[[0-9]+/[0-9]+\]|^(Building|Build complete|Build of product)' | tee "$suite"

    # p50 wall clock and peak RSS per workload and backend, with the ratios to raw.
    {
        echo
        echo "## ordo-one/benchmark p50 (N = $N)"
        echo
        awk -F'│' '
            function unit(label,   n, parts, last) {
                n = split(label, parts, "(")
                last = parts[n]
                sub(/\).*/, "", last)
                return (n > 2 ? last : "")
            }
            function ms(value, u) {
                if (u == "ns") return value / 1e6
                if (u == "μs" || u == "us") return value / 1e3
                if (u == "s") return value * 1e3
                return value
            }
            /^(insert|fetch|filter|lookup|update|delete|graph|memfilter|json|enumerate) (raw|strata|grdb)[ ]*$/ { split($0, name, " "); w = name[1]; b = name[2]; next }
            w != "" && $2 ~ /Time \(wall clock\)/ { time[w, b] = ms($5 + 0, unit($2)); next }
            w != "" && $2 ~ /Memory \(resident peak\)/ { gsub(/ /, "", $5); mem[w, b] = $5 " " unit($2); next }
            END {
                print "| workload | raw ms | strata ms | grdb ms | strata/raw | grdb/raw | peak RSS raw / strata / grdb |"
                print "|---|---:|---:|---:|---:|---:|---|"
                n = split("insert fetch filter lookup update delete graph memfilter json enumerate", ws, " ")
                for (i = 1; i <= n; i++) {
                    w = ws[i]
                    r = time[w, "raw"]; s = time[w, "strata"]; g = time[w, "grdb"]
                    printf "| %s | %s | %s | %s | %s | %s | %s / %s / %s |\n", w,
                        (r ? sprintf("%.1f", r) : "–"), (s ? sprintf("%.1f", s) : "–"), (g ? sprintf("%.1f", g) : "–"),
                        (r && s ? sprintf("%.2f×", s / r) : "–"), (r && g ? sprintf("%.2f×", g / r) : "–"),
                        mem[w, "raw"], mem[w, "strata"], mem[w, "grdb"]
                }
            }' "$suite"
    } | tee -a "$suite"
fi

echo >&2
echo "== paired ratio report (N = $N, K = $K, one process per run) -> $report, $report_json, $chart" >&2
.build/release/StrataPerfReport --n "$N" --k "$K" --json "$report_json" --plot "$chart" | tee "$report"

echo >&2
echo "== JSON store vs Foundation JSONEncoder/JSONDecoder (N = $N) -> results/json-$N.md" >&2
swift build -c release --product JSONStoreReport >&2
.build/release/JSONStoreReport "$N" | tee "results/json-$N.md"
