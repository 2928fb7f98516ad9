#!/usr/bin/env bash
# Builds kubesim and runs the main job on a shipped example: Batkube's spaced workload
# (200 jobs of 170 s, one every 10 s) on the 16-node graphene platform (data/batkube/).
# KUBESIM=path/to/kubesim skips the build and runs that binary (the clone test uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KUBESIM:-}" ]; then
  scripts/build.sh --no-tests  # progress on stderr
  KUBESIM=build/kubesim
fi
"$KUBESIM" run --platform data/batkube/platform_graphene_16nodes.xml \
  --workload data/batkube/spaced_200_delay170.json --out results/spaced "$@"
# kubesim's summary above answers (jobs, makespan, mean and p99 wait, utilisation); the rest
# is in the report and the Batsim CSVs.
echo "Open results/spaced/report.html for the charts; every digit is in results/spaced/{jobs,schedule}.csv."
