#!/usr/bin/env bash
# Builds kubesim and runs every test: unit tests and whole-run scenario tests (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
