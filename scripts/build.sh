#!/usr/bin/env bash
# Configures and builds kubesim (Release) into build/, showing ninja's progress on stderr.
#   scripts/build.sh             everything: kubesim, the Python module, tests, benchmarks
#   scripts/build.sh --no-tests  only what a user runs (kubesim, kubesim-timeshim, the Python
#                                module, man pages, completion): fewer packages, shorter build
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == --no-tests ]]; then
  scripts/install-deps.sh --build-only
  tests=OFF
else
  scripts/install-deps.sh
  tests=ON
fi
echo "configuring build/ (tests $tests)" >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKUBESIM_BUILD_TESTS=$tests -DKUBESIM_BUILD_BENCH=$tests >/dev/null
ninja -C build >&2
