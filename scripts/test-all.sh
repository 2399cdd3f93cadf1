#!/usr/bin/env bash
# Runs every test: the release build's unit and end-to-end tests, the unit tests
# under AddressSanitizer+UndefinedBehaviorSanitizer, and a short libFuzzer run of
# every fuzz target over its seed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
status=0

echo "== release build: unit + end-to-end tests"
(cd build && ctest --output-on-failure -j "$JOBS") || status=1

echo "== ASan+UBSan build: unit tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTEEBENCH_SANITIZE=ON -DTEEBENCH_E2E=OFF >/dev/null
cmake --build build-asan -j "$JOBS" >/dev/null
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j "$JOBS" -L unit) || status=1

echo "== libFuzzer targets: smoke run"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DTEEBENCH_FUZZ=ON -DTEEBENCH_E2E=OFF >/dev/null
cmake --build build-fuzz -j "$JOBS" >/dev/null
(cd build-fuzz && ctest --output-on-failure -j "$JOBS" -L fuzz) || status=1

exit $status
