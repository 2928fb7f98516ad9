#!/bin/sh
# The shipped comparisons (kubesim compare): the multi-tenant study's E3 and E4, Batkube's
# spaced workload and the NASA iPSC trace, each under several scheduler setups and seeds.
# Usage: examples/compare/run.sh [KUBESIM_BINARY] (from the repository root; default
# build/kubesim). Results go to results/compare-*/compare.html.
#
# Contenders are scheduler setups (`kubesim run --help` lists them), NAME=CONFIGFILE passing
# the setup its own configuration file, A+B running several side by side in one cluster.
set -eu
KUBESIM=${1:-build/kubesim}
DATA=${DATA:-data}
# The study's four: kube-scheduler, scheduler-plugins with the study's ElasticQuotas, YuniKorn
# with the study's queues, and Kueue with one ClusterQueue per tenant.
STUDY="default-scheduler,scheduler-plugins=examples/scheduler-plugins/all-cap-quota.yaml,yunikorn,kueue=examples/kueue/tenants.yaml"
HPC="default-scheduler,fcfs,easy-backfill,conservative-backfill"

# E3 and E4: four contenders x five seeds (the target: both under 5 s in total).
"$KUBESIM" compare --scenario examples/multitenant/e3.yaml --schedulers "$STUDY" --seeds 5 --out results/compare-e3
"$KUBESIM" compare --scenario examples/multitenant/e4.yaml --schedulers "$STUDY" --seeds 5 --out results/compare-e4

# Batkube's spaced workload on the 16-node graphene platform.
"$KUBESIM" compare --platform "$DATA/batkube/platform_graphene_16nodes.xml" \
    --workload "$DATA/batkube/spaced_200_delay170.json" \
    --schedulers "$HPC" --seeds 5 --out results/compare-spaced

# The NASA iPSC/860 trace (SWF) on its 128-node cluster.
"$KUBESIM" compare --cluster examples/nasa/cluster.yaml --swf "$DATA/swf/NASA-iPSC-1993-3.1-cln.swf" --swf-processors cores \
    --schedulers "$HPC" --seeds 3 --out results/compare-nasa

# Two schedulers in one cluster (examples/multi-scheduler): kube-scheduler beside Fluxion, with
# and without Fluxion's informer.
"$KUBESIM" compare --scenario examples/multi-scheduler/shared-cluster.yaml \
    --schedulers default-scheduler+fluxion,default-scheduler+kubeflux-noinformer --seeds 3 --out results/compare-multi-scheduler
