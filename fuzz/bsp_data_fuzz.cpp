// libFuzzer target: the BSP gang study's data set (`kubesim bsp --data DIR`; see
// fuzz/fuzz_input.hpp for the contract). The first byte chooses the file the input replaces
// in data/gang/:
//   0: config.ini, then the planners of the study are built on the shipped profile and traces
//      and the study's table runs when the settings fit the shipped traces;
//   1: workload_profiling.csv, then the fitted splines are evaluated over the grid box;
//   2: one workload series (actual/ or forecasts/), read and scaled as the study does.
#include "bsp/gang_study.hpp"
#include "bsp/planner.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  using namespace kubesim::bsp;
  if (size < 1) return 0;
  static const StudyData study = load_study_data(KUBESIM_SOURCE_DIR "/data/gang");
  const int which = data[0] % 3;
  const std::string path = fuzz::input_file(data + 1, size - 1, which == 0 ? ".ini" : ".csv");
  return fuzz::expect_input_errors_only([&] {
    if (which == 0) {
      StudySettings settings = read_study_settings(path);
      // Bounded by the shipped traces (run_study_table checks them first), as `kubesim bsp` is.
      settings.simulation_length = std::min(settings.simulation_length, 3);
      (void)run_study_table(study.model, study.forecasts, study.actual, settings);
    } else if (which == 1) {
      const PerformanceModel model = PerformanceModel::read_csv(path);
      for (std::size_t t = 0; t < model.task_count(); ++t)
        for (double s : {0.0, 10.0, 30.0, 1e9})
          for (double c : {0.0, 1000.0, 5000.0, 1e9}) (void)model.duration(t, s, c);
    } else {
      const WorkloadTrace trace = WorkloadTrace::read_csv_files({path}, study.settings.min_workload, study.settings.max_workload);
      trace.require(1, 1, "a run of one step");
    }
  });
}
