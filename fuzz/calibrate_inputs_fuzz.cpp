// libFuzzer target: the measured inputs of `kubesim calibrate` and `kubesim fidelity` (see
// fuzz/fuzz_input.hpp for the contract), fitted and written as a model file, which must then
// load. The first byte chooses the input (modulo 3):
//   0: a jobs.csv of a Batkube real-cluster run (checked against data/batkube/200_delay170.json);
//   1: a live cluster's PodList and EventList (JSON, as the API server answers), separated by a
//      NUL byte;
//   2: the kubeconfig naming the live cluster (read only: nothing is contacted).
#include <nlohmann/json.hpp>

#include "calibrate/calibrate.hpp"
#include "calibrate/live_cluster.hpp"
#include "calibrate/measurements.hpp"
#include "engine/model_config.hpp"
#include "fuzz/fuzz_input.hpp"
#include "workload/batsim_workload.hpp"

namespace {

kubesim::calibrate::MeasuredRun cluster_run(std::string_view text) {
  const std::size_t nul = text.find('\0');
  const auto pods = nlohmann::json::parse(text.substr(0, nul), nullptr, false);
  const auto events = nul == std::string_view::npos ? nlohmann::json::object()
                                                    : nlohmann::json::parse(text.substr(nul + 1), nullptr, false);
  // live_cluster.cpp refuses a body that is no JSON before this point.
  if (pods.is_discarded() || events.is_discarded()) throw kubesim::InputError("cluster", 0, "not JSON");
  return kubesim::calibrate::timelines_from_cluster(pods, events, "cluster", kubesim::calibrate::kUnknown,
                                                     kubesim::calibrate::kUnknown);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  if (size < 1) return 0;
  static ResourceNames names;
  static const Workload workload = read_batsim_workload(KUBESIM_SOURCE_DIR "/data/batkube/200_delay170.json", names);
  const int which = data[0] % 3;
  const bool cluster = which == 1;
  const std::string path = fuzz::input_file(data + 1, size - 1, ".csv");
  return fuzz::expect_input_errors_only([&] {
    if (which == 2) {
      (void)calibrate::read_kubeconfig_endpoint(path);
      return;
    }
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const calibrate::Calibration fitted =
        calibrate::calibrate({cluster ? cluster_run(text) : calibrate::read_measured_jobs_csv(path, workload)});
    // The fitted model must be a model file kubesim reads, and the report must be written.
    const std::string model = path + ".model.yaml";
    std::ofstream(model, std::ios::binary | std::ios::trunc) << calibrate::calibration_yaml(fitted);
    (void)calibrate::calibration_report_html(fitted);
    try {
      (void)ModelConfig::load(model);
    } catch (const InputError&) {
      std::abort();  // calibrate wrote a model file that run refuses
    }
  });
}
