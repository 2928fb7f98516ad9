#!/usr/bin/env bash
# The sanitizer job (scripts/test.sh runs it after the normal tests; KUBESIM_SANITIZE_JOB=0 skips
# it): AddressSanitizer + UndefinedBehaviorSanitizer over every reader and the API, in one
# clang build so that CI stays well under its time limit:
#   1. scripts/fuzz.sh SECONDS: builds build-fuzz (clang-14, ASan + UBSan + libFuzzer) and runs
#      each reader's and the API's fuzz target over its seed corpus (the shipped inputs and
#      tests/bad/) for SECONDS (default 5) each;
#   2. the same build folder with the tests on: the unit tests (every reader's bad-input
#      tests, the API server, quantities, selectors, patches, ...) and `kubesim serve` under
#      the API's error-path and abuse tests (tests/api: part d, soak_test.py).
# A sanitizer report fails the job (-fno-sanitize-recover=undefined; ASan aborts).
#   scripts/sanitize.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
start=$(date +%s)
scripts/fuzz.sh "$seconds"
# fuzz.sh configures build-fuzz without the tests; the libraries are shared, so only the test
# sources and the CLI are compiled here.
cmake -S . -B build-fuzz -DKUBESIM_BUILD_TESTS=ON >/dev/null
ninja -C build-fuzz kubesim_tests kubesim
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build-fuzz/kubesim_tests --gtest_brief=1
/usr/bin/python3 tests/api/run_api_tests.py build-fuzz/kubesim --only d
/usr/bin/python3 tests/api/soak_test.py build-fuzz/kubesim
echo "sanitizer job: $(($(date +%s) - start)) s"
