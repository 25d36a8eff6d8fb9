# The two commands of the README. Both install missing system packages first.
SWIFT ?= swift

.PHONY: demo test system-packages

system-packages:
	@./scripts/ensure-system-packages.sh

## Build and run the SampleTrips program.
demo: system-packages
	$(SWIFT) run SampleTrips

## Build and run the whole test suite.
test: system-packages
	$(SWIFT) test
