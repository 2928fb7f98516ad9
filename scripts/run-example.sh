#!/usr/bin/env bash
# Builds kubesim and runs the main job on a shipped example: Batkube's spaced workload
# (200 jobs of 170 s, one every 10 s) on the 16-node graphene platform.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
data=../shared/data/batkube
build/kubesim run --platform "$data/platform_graphene_16nodes.xml" \
  --workload "$data/spaced_200_delay170.json" --out results/spaced "$@"
echo "--- results/spaced/schedule.csv"
cat results/spaced/schedule.csv
