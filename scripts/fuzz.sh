#!/usr/bin/env bash
# Fuzzes every reader and the API with libFuzzer (clang, ASan + UBSan), each target for
# SECONDS (default 60), starting from seed corpora made of the shipped inputs. Findings
# (crash-*, leak-*, timeout-*, oom-*) are left in build-fuzz/findings/<target>/ and make the
# script fail. Prints each target's executions and speed.
#   scripts/fuzz.sh [--build-only] [SECONDS] [TARGET...]   (--build-only: build, run nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ "${1:-}" == --build-only ]]; then build_only=1; shift; fi
seconds=${1:-60}; shift || true
scripts/install-deps.sh --sanitizer
# -O1: the level clang's AddressSanitizer documentation asks for reasonable speed; the build (a
# second one of the whole tree in CI) is shorter than at RelWithDebInfo's -O2. The line tables
# a report's stack needs come from the sanitizer options (-g1, CMakeLists.txt).
CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DKUBESIM_FUZZ=ON \
  -DKUBESIM_BUILD_TESTS=OFF -DKUBESIM_BUILD_BENCH=OFF >/dev/null
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
ninja -C build-fuzz "${targets[@]}"
((build_only)) && exit 0

# Seed corpora: the shipped files each reader reads.
seeds() {
  case "$1" in
    batsim_json_fuzz) ls data/batkube/*.json tests/bad/json-*.json ;;
    swf_fuzz) ls data/swf/KIT-10-80.swf tests/bad/*.swf ;;
    simgrid_xml_fuzz) ls data/batkube/*.xml data/batsim/*.xml tests/bad/*.xml ;;
    cluster_yaml_fuzz) ls examples/*/cluster.yaml tests/bad/yaml-*.yaml ;;
    scenario_yaml_fuzz) ls examples/multitenant/*.yaml examples/*/*.yaml tests/bad/scenario-*.yaml ;;
    manifest_yaml_fuzz) ls examples/multitenant/manifests/*.yaml examples/serve/job.yaml ;;
    model_yaml_fuzz) ls examples/model/*.yaml src/engine/models/*.yaml tests/bad/model-*.yaml ;;
    scheduler_config_fuzz) ls examples/scheduler-config/*.yaml tests/bad/scheduler-*.yaml ;;
    scheduler_plugins_objects_fuzz) ls examples/scheduler-plugins/*.yaml ;;
    yunikorn_config_fuzz) ls examples/yunikorn/yunikorn-configs.yaml ;;
    kueue_config_fuzz) ls examples/kueue/*.yaml ;;
    fluxion_config_fuzz) ls examples/kubeflux/*.yaml ;;
    quantity_fuzz) printf '%s\n' 1 500m 4Gi 1.5 8G 1e3 12Mi ;;
    label_selector_fuzz) printf '%s\n' 'app=demo' 'a in (x,y),!b' 'tier notin (web)' 'x!=y,z' ;;
    sweep_plan_fuzz) ls examples/sweep/*.yaml examples/openb/small.yaml examples/python-policy/sweep-bin-packing.yaml ;;
  esac
}
failed=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  case "$t" in
    quantity_fuzz|label_selector_fuzz)
      i=0; while read -r line; do printf '%s' "$line" >"$corpus/seed-$i"; i=$((i + 1)); done < <(seeds "$t") ;;
    bsp_data_fuzz)  # selector byte 0 config.ini, 1 profiling, 2 a workload series
      { printf '\0'; cat data/gang/config.ini; } >"$corpus/config.ini"
      { printf '\1'; cat data/gang/workload_profiling.csv; } >"$corpus/profiling.csv"
      { printf '\2'; head -c 60000 data/gang/actual/nyc_taxi_1_actual.csv; } >"$corpus/series.csv" ;;
    calibrate_inputs_fuzz)  # selector byte 0 a jobs.csv, 1 PodList NUL EventList, 2 a kubeconfig
      { printf '\0'; cat data/batkube/real-k3s/200_delay170_0_jobs.csv; } >"$corpus/jobs.csv"
      { printf '\1'; cat fuzz/seeds/podlist.json; printf '\0'; cat fuzz/seeds/eventlist.json; } >"$corpus/cluster.json"
      { printf '\2'; cat fuzz/seeds/kubeconfig.yaml; } >"$corpus/kubeconfig.yaml" ;;
    patch_fuzz)  # type byte 0 a merge patch, 1 a strategic merge patch, 2 a JSON patch
      printf '\x00%s' '{"metadata":{"labels":{"a":null,"c":"d"}},"spec":{"tolerations":[{"key":"k"}]}}' >"$corpus/merge"
      printf '\x01%s' '{"spec":{"containers":[{"name":"c","image":"nginx"}],"$setElementOrder/containers":[{"name":"c"}]}}' \
        >"$corpus/strategic"
      printf '\x02%s' '[{"op":"replace","path":"/spec/containers/0/image","value":"nginx"},{"op":"add","path":"/metadata/labels/x","value":"y"},{"op":"test","path":"/kind","value":"Pod"},{"op":"remove","path":"/status/conditions/0"}]' \
        >"$corpus/json-patch" ;;
    api_request_fuzz)  # method byte (0 POST, 1 PUT, 2 PATCH, 3 DELETE), path byte (fuzz/api_request_fuzz.cpp kPaths), body
      pod='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}}'
      printf '\x00\x00%s' "$pod" >"$corpus/create-pod"
      printf '\x01\x01%s' "$pod" >"$corpus/replace-pod"
      printf '\x02\x01%s' '{"metadata":{"labels":{"app":"b"}}}' >"$corpus/patch-pod"
      printf '\x00\x02%s' '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"node-0"}}' \
        >"$corpus/binding"
      printf '\x00\x03%s' '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}' \
        >"$corpus/node"
      printf '\x00\x04%s' '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"completions":2,"parallelism":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}' \
        >"$corpus/job"
      printf '\x00\x06%s' '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"requests.cpu":"2"}}}' \
        >"$corpus/quota"
      printf '\x00\x08%s' '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000}' \
        >"$corpus/priorityclass"
      printf '\x03\x01%s' '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}' >"$corpus/delete" ;;
    *) for f in $(seeds "$t"); do cp "$f" "$corpus/"; done ;;
  esac
  log=build-fuzz/findings/$t.log
  if ! build-fuzz/"$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -artifact_prefix="$findings/" "$corpus" >"$log" 2>&1; then
    failed=1
    echo "FINDING in $t: see $log and $findings/"
  fi
  # libFuzzer's last status line: "#N DONE cov: ... exec/s: R ..."
  echo "$t: $(grep -E '^#[0-9]+' "$log" | tail -1 | sed -E 's/.*#([0-9]+).*exec\/s: ([0-9]+).*/\1 execs, \2 exec\/s/')"
done
exit $failed
