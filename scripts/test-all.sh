#!/usr/bin/env bash
# Runs every test (`make test`), in four stages, and prints each stage's result and time:
#   0. docs/ARCHITECTURE.md checked against the tree (scripts/check-architecture.py);
#   1. the release build (build/): unit + end-to-end tests;
#   (tests labelled "slow" -- e2e tests named slow_*, e.g. booting a VM under TCG -- run
#   only in stage 1: they exercise no code path the other stages would see differently)
#   2. AddressSanitizer+UndefinedBehaviorSanitizer (build-asan/): unit + end-to-end tests
#      (the e2e tests drive build-asan/teebench; lib.sh fails a test if any process it
#      started, foreground or background, wrote a sanitizer report);
#   3. ThreadSanitizer (build-tsan/): the unit tests and the end-to-end tests labelled
#      "threads" (a "# labels: threads" line: load generator and fixture server with 2
#      threads, the notary's workers and concurrent clients, the bench harness, the
#      suite); the other e2e tests run single-threaded code that stage 2 already covers;
#   4. a short libFuzzer run of every fuzz target over its seed corpus (built in
#      build-asan/, which clang compiles with the fuzzer's instrumentation).
# Any sanitizer report fails the test that caused it: halt/abort on the first error,
# leaks checked at exit. Sanitizer builds set TEEBENCH_SANITIZER=asan|tsan for e2e
# tests, which may skip a timing-only assertion (documented where they do), never a
# behaviour check.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
# Debian's tools first: a python3 (or cmake, openssl) from a version manager's shims
# (pyenv's costs ~2 s per start) is neither what setup.sh installed nor fast.
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# A fresh machine, every time: the whole run (builds, unit tests, e2e tests) sees an
# empty HOME and XDG base directories made for it, removed at the end, so that nothing
# this machine accumulated (~/.ansible, ~/.cache/teebench, a results.db, shell or tool
# settings) can make a test pass or fail. (tests/e2e/lib.sh gives each e2e test a HOME
# of its own inside that; OpenSSH reads ~/.ssh from the passwd database's home, so every
# test that runs ssh passes -F with a config it wrote.)
TB_TEST_HOME=$(mktemp -d /tmp/tb-home.XXXXXX)
trap 'rm -rf "$TB_TEST_HOME"' EXIT
mkdir -m 0700 -p "$TB_TEST_HOME/home/.config" "$TB_TEST_HOME/home/.cache" \
  "$TB_TEST_HOME/home/.local/share" "$TB_TEST_HOME/home/.local/state" "$TB_TEST_HOME/run"
export HOME=$TB_TEST_HOME/home XDG_CONFIG_HOME=$TB_TEST_HOME/home/.config \
  XDG_CACHE_HOME=$TB_TEST_HOME/home/.cache XDG_DATA_HOME=$TB_TEST_HOME/home/.local/share \
  XDG_STATE_HOME=$TB_TEST_HOME/home/.local/state XDG_RUNTIME_DIR=$TB_TEST_HOME/run
unset TEEBENCH_DB TEEBENCH_PKI TEEBENCH_SIM_DIR XDG_CONFIG_DIRS XDG_DATA_DIRS PYENV_VERSION
echo "== a fresh HOME for this run: $HOME"
status=0
summary=()
passed=0
failed=0
skipped=0
t_all=$(date +%s)

# Every sanitizer stops at its first report with a failing exit; LSan checks at exit.
# (tests/e2e/lib.sh adds log_path so that reports of background servers are seen.)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=0:print_summary=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
export TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:history_size=4

# stage NAME DIR CTEST-ARGS...: runs ctest in DIR, records pass/fail and seconds.
stage() {
  local name=$1 dir=$2 t0 rc=0; shift 2
  t0=$(date +%s)
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" "$@" | tee ctest.log) || rc=1
  [ $rc -eq 0 ] || status=1
  # ctest's closing line: "NN% tests passed, F tests failed out of T"
  local line f t
  line=$(grep -E 'tests failed out of [0-9]+' "$dir/ctest.log" | tail -n 1 || true)
  if [ -n "$line" ]; then
    f=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
    t=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/' <<<"$line")
    # skipped tests (exit 77: "skipped: why") are listed as "(Skipped)"; they never count as passed
    local sk
    sk=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)' "$dir/ctest.log" || true)
    passed=$((passed + t - f - sk))
    failed=$((failed + f))
    skipped=$((skipped + sk))
  fi
  summary+=("$(printf '%-40s %s %4ds' "$name" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" $(($(date +%s) - t0)))")
}

configure() { # DIR CMAKE-ARGS...: configure and build quietly (build errors shown)
  local dir=$1 t0; shift
  t0=$(date +%s)
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DTEEBENCH_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS" >"$dir/build.log" 2>&1 || { cat "$dir/build.log"; return 1; }
  summary+=("$(printf '%-40s %s %4ds' "  build $dir" "done" $(($(date +%s) - t0)))")
}

# build/teebench-static (`make static`, not a default target), which
# tests/e2e/slow_static.sh runs in a Debian 11 root
build_static() {
  cmake --build build -j "$JOBS" --target teebench-static >build/build-static.log 2>&1 ||
    { cat build/build-static.log; return 1; }
}

# Before any build: docs/ARCHITECTURE.md names only what exists (one line per missing
# file, module or function; also the CTest test docs.architecture).
echo "== docs/ARCHITECTURE.md against the tree"
if python3 scripts/check-architecture.py docs/ARCHITECTURE.md .; then
  summary+=("$(printf '%-40s %s %4ds' "architecture document" PASS 0)")
else status=1; summary+=("$(printf '%-40s %s %4ds' "architecture document" FAIL 0)"); fi

echo "== release build: unit + end-to-end tests"
if configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEEBENCH_WERROR=ON && build_static; then
  stage "release: unit + e2e" build
else status=1; summary+=("release: build FAILED"); fi

echo "== ASan+UBSan build (clang, with the libFuzzer targets): unit + end-to-end tests"
# One clang build serves stages 2 and 4: everything compiled with ASan+UBSan and the
# fuzzer's coverage instrumentation, the fuzz targets linked with libFuzzer. It is also
# the clang half of "warning-free with gcc and clang" (stages 1 and 3 use gcc).
asan_ok=0
if [ -f build-asan/CMakeCache.txt ] && ! grep -q '^CMAKE_C_COMPILER:.*clang' build-asan/CMakeCache.txt; then
  rm -rf build-asan # configured with another compiler before
fi
if CC=clang configure build-asan -DTEEBENCH_SANITIZE=ON -DTEEBENCH_FUZZ=ON -DTEEBENCH_E2E=ON; then
  asan_ok=1
  stage "asan+ubsan: unit + e2e" build-asan -LE "^(slow|fuzz)$"
else status=1; summary+=("asan+ubsan: build FAILED"); fi

echo "== ThreadSanitizer build: unit + end-to-end tests"
if configure build-tsan -DTEEBENCH_TSAN=ON -DTEEBENCH_E2E=ON; then
  stage "tsan: unit + threaded e2e" build-tsan -L "^(unit|threads)$" -LE slow
else status=1; summary+=("tsan: build FAILED"); fi

echo "== libFuzzer targets: smoke run"
if [ $asan_ok -eq 1 ]; then
  stage "fuzz smoke" build-asan -L "^fuzz$"
else status=1; summary+=("fuzz: not run (the ASan build failed)"); fi

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "total $(($(date +%s) - t_all))s: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
echo "tests: $passed passed, $skipped skipped, $failed failed"
exit $status
