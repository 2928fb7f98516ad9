#!/usr/bin/env bash
# Builds kubesim and runs every test: unit tests and whole-run scenario tests (ctest), then the
# sanitizer job (scripts/sanitize.sh: ASan + UBSan over every reader and the API; set
# KUBESIM_SANITIZE_JOB=0 to skip it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
if [[ "${KUBESIM_SANITIZE_JOB:-1}" != 0 ]]; then
  scripts/sanitize.sh
fi
