# Entry points (see README.md):
#   make        build build/teebench (the binary only: no tests, no cmocka needed)
#   make run    install what is missing, build, run the main job on this machine
#   make test   install what is missing, build, run every test (release, ASan+UBSan, TSan, fuzz smoke)
#   make install [PREFIX=/usr/local] [DESTDIR=]   the binary, its man page (teebench.1) and its
#               bash completion, both generated from its --help text
JOBS ?= $(shell nproc)
CMAKE ?= cmake

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all teebench install setup setup-test run test test-release test-sanitize test-fuzz format clean

all: teebench

teebench:
	@$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build build -j $(JOBS) --target teebench

install:
	@$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$(PREFIX)" >/dev/null
	@$(CMAKE) --build build -j $(JOBS) --target teebench teebench_docs
	@DESTDIR="$(DESTDIR)" $(CMAKE) --install build

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
