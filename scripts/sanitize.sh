#!/usr/bin/env bash
# The sanitizer job (scripts/test.sh runs it after the normal tests; KUBESIM_SANITIZE_JOB=0 skips
# it): AddressSanitizer + UndefinedBehaviorSanitizer over every reader and the API, in the one
# clang build folder of the fuzz targets (build-fuzz), so that CI stays well under its limit:
#   1. scripts/fuzz.sh SECONDS: builds the libFuzzer targets (clang-14, ASan + UBSan) and runs
#      each reader's and the API's target for SECONDS (default 5) over its seed corpus: the
#      shipped inputs and the malformed ones of tests/bad/;
#   2. `kubesim` from the same objects, under the API's error-path test (tests/api part d:
#      every 4xx Status, through the HTTP server); the abuse soak test runs in the normal suite
#      only: its latency bound measures the server, which ASan slows several times;
#   3. with KUBESIM_SANITIZE_UNIT=1, also the unit tests (kubesim_tests), which CI leaves out
#      for time: compiling them under ASan costs several minutes of the 2 cores.
# A sanitizer report fails the job (-fno-sanitize-recover=undefined; ASan aborts).
#   scripts/sanitize.sh [--build-only] [SECONDS]   (--build-only: build everything, run nothing;
#   scripts/test.sh builds so at the lowest CPU priority while ctest runs)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=()
if [[ "${1:-}" == --build-only ]]; then build_only=(--build-only); shift; fi
seconds=${1:-5}
start=$(date +%s)
scripts/fuzz.sh "${build_only[@]}" "$seconds"
targets=(kubesim)
if [[ "${KUBESIM_SANITIZE_UNIT:-0}" == 1 ]]; then
  # fuzz.sh configures build-fuzz without the tests; the libraries are shared.
  cmake -S . -B build-fuzz -DKUBESIM_BUILD_TESTS=ON >/dev/null
  targets+=(kubesim_tests)
fi
ninja -C build-fuzz "${targets[@]}"
((${#build_only[@]})) && exit 0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [[ "${KUBESIM_SANITIZE_UNIT:-0}" == 1 ]]; then
  build-fuzz/kubesim_tests --gtest_brief=1
fi
/usr/bin/python3 tests/api/run_api_tests.py build-fuzz/kubesim --only d
echo "sanitizer job: $(($(date +%s) - start)) s"
