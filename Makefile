# Entry points (see README.md):
#   make        build build/teebench
#   make run    install what is missing, build, run the main job on this machine
#   make test   install what is missing, build, run every test (release, ASan+UBSan, TSan, fuzz smoke)
JOBS ?= $(shell nproc)
CMAKE ?= cmake

.PHONY: all teebench setup setup-test run test test-release test-sanitize test-fuzz format clean

all: teebench

teebench:
	@$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build build -j $(JOBS) --target teebench

setup:
	@bash scripts/setup.sh

setup-test:
	@bash scripts/setup.sh --test

run: setup
	@$(MAKE) --no-print-directory teebench
	@bash scripts/run-main.sh

test: setup-test
	@$(MAKE) --no-print-directory teebench
	@bash scripts/test-all.sh

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan build-tsan build-fuzz
