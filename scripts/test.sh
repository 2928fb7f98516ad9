#!/usr/bin/env bash
# Builds kubesim and runs every test: unit tests and whole-run scenario tests (ctest), then the
# sanitizer job (scripts/sanitize.sh: ASan + UBSan over every reader and the API; set
# KUBESIM_SANITIZE_JOB=0 to skip it).
# The sanitizer job's clang build runs at the lowest CPU priority (nice 19) while ctest runs:
# many tests wait (real binaries on simulated time, kubectl, a browser, Slurm daemons), and the
# scheduler gives the build only the CPU they leave idle, so the job's build costs little wall
# time. Its packages are installed first, so no apt-get runs beside the tests' dpkg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
sanitize=${KUBESIM_SANITIZE_JOB:-1}
sanitizer_build=""
if [[ "$sanitize" != 0 ]]; then
  scripts/install-deps.sh --sanitizer
  mkdir -p build-fuzz
  nice -n 19 scripts/sanitize.sh --build-only >build-fuzz/build.log 2>&1 &
  sanitizer_build=$!
fi
status=0
ctest --test-dir build --output-on-failure -j2 || status=$?
if [[ -n "$sanitizer_build" ]]; then
  if ! wait "$sanitizer_build"; then
    echo "the sanitizer job's build failed:" >&2
    tail -n 40 build-fuzz/build.log >&2
    exit 1
  fi
  ((status == 0)) && scripts/sanitize.sh
fi
exit "$status"
