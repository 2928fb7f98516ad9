#!/bin/sh
# The shipped comparisons (kubesim compare): the multi-tenant study's E3 and E4, Batkube's
# spaced workload and the NASA iPSC trace, each under several scheduler setups and seeds.
# Usage: examples/compare/run.sh [KUBESIM_BINARY] (from the repository root; default
# build/kubesim). Results go to results/compare-*/compare.html.
#
# Today only the `default-scheduler` setup is registered, so the contenders are
# kube-scheduler under different KubeSchedulerConfigurations (NAME=CONFIGFILE). The lines
# marked "once registered" are the intended comparisons; switch to them when the
# scheduler-plugins, YuniKorn, Kueue and HPC batch setups (fcfs, easy-backfill,
# conservative-backfill) are in `kubesim run --help`'s list.
set -eu
KUBESIM=${1:-build/kubesim}
DATA=${DATA:-../shared/data}
CFG=examples/scheduler-config
K8S="default-scheduler,default-scheduler=$CFG/most-allocated.yaml,default-scheduler=$CFG/requested-to-capacity-ratio.yaml,default-scheduler=$CFG/slow-backoff.yaml"

# E3 and E4: four contenders x five seeds (the target: both under 5 s in total).
"$KUBESIM" compare --scenario examples/multitenant/e3.yaml --schedulers "$K8S" --seeds 5 --out results/compare-e3
"$KUBESIM" compare --scenario examples/multitenant/e4.yaml --schedulers "$K8S" --seeds 5 --out results/compare-e4
# once registered:
#   --schedulers default-scheduler,scheduler-plugins=<all-cap-quota.yaml>,yunikorn=<yunikorn-configs.yaml>,kueue=<queues>

# Batkube's spaced workload on the 16-node graphene platform.
"$KUBESIM" compare --platform "$DATA/batkube/platform_graphene_16nodes.xml" \
    --workload "$DATA/batkube/spaced_200_delay170.json" \
    --schedulers "default-scheduler,default-scheduler=$CFG/most-allocated.yaml" --seeds 5 --out results/compare-spaced
# once registered:
#   --schedulers default-scheduler,fcfs,easy-backfill,conservative-backfill

# The NASA iPSC/860 trace (SWF) on its 128-node cluster.
"$KUBESIM" compare --cluster examples/nasa/cluster.yaml --swf "$DATA/swf/NASA-iPSC-1993-3.1-cln.swf" \
    --schedulers "default-scheduler,default-scheduler=$CFG/most-allocated.yaml" --seeds 3 --out results/compare-nasa
# once registered:
#   --schedulers default-scheduler,fcfs,easy-backfill,conservative-backfill
