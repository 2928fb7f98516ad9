// An openb trace as a simulation's inputs: the trace's own dynamics, each pod running from its
// creation_time to its deletion_time (149 days), through the normal simulation (queueing,
// scheduler, kubelets), a study the FGD paper does not make. `kubesim run --openb-nodes N.csv
// --openb-pods P.csv` (without --openb-protocol).
//
//   node: cpu_milli and memory_mib allocatable, 1001 pods (the authors' node YAML), `gpu`
//         devices of class nvidia.com/gpu and its model (model/devices.hpp), the model also as
//         the label alibabacloud.com/gpu-card-model (kGpuModelLabel), the count as
//         allocatable nvidia.com/gpu;
//   pod:  a bare pod named as in the trace, submitted at creation_time, its container running
//         deletion_time - creation_time; cpu and memory requests (= limits); num_gpu devices
//         with gpu_milli each of one of gpu_spec's models (a DeviceRequest), and the openb
//         annotations the authors' scheduler reads (alibabacloud.com/gpu-milli, gpu-count,
//         gpu-card-model), so that a GPU-share plugin configured in the scheduler can read
//         them. A pod without times (the multigpu files) is refused: it has no dynamics.
#pragma once

#include "engine/simulation.hpp"
#include "workload/openb_csv.hpp"

namespace kubesim {

// Fills in.nodes and in.workload from the trace (in.resource_names registers memory and
// nvidia.com/gpu as needed).
void openb_simulation_inputs(const OpenbTrace& trace, SimulationInputs& in);

// One node of the trace as above (`gpu_slot`: the slot of nvidia.com/gpu), and one pod's
// template (requests, device request, annotations).
Node openb_node(const OpenbNode& n, int gpu_slot);
PodTemplate openb_pod_template(const OpenbPod& p);

}  // namespace kubesim
