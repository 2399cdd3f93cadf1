# Entry points (see README.md):
#   make        build build/teebench (the binary only: no tests, no cmocka needed)
#   make static build/teebench-static: self-contained (no shared library needed), the build
#               `suite run --target` copies to a remote that cannot run build/teebench
#   make run    install what is missing, build, run the main job on this machine
#   make test   install what is missing, build, run every test (release, ASan+UBSan, TSan, fuzz smoke)
#   make install [PREFIX=/usr/local] [DESTDIR=]   the binary, its man page (teebench.1) and its
#               bash completion, both generated from its --help text
JOBS ?= $(shell nproc)
CMAKE ?= cmake

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all teebench static install setup setup-test run test test-release test-sanitize test-fuzz format clean

all: teebench

teebench:
	@$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build build -j $(JOBS) --target teebench

static:
	@$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build build -j $(JOBS) --target teebench-static
	@echo "build/teebench-static: $$(du -h build/teebench-static | cut -f1), no shared library needed." \
	  "(The linker's \"Using '...' in statically linked applications\" warnings are" \
	  "expected: README.md, \"The self-contained build\", says how teebench avoids them.)"

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
