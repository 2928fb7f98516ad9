// libFuzzer target: sweep plans (`kubesim sweep PLAN.yaml`; see fuzz/fuzz_input.hpp for the
// contract): the plan is read, expanded into its cells and each cell's axis values and
// configuration key are built and every cell's configuration is checked, as sweep does before
// it touches --out. The plan is written to
// examples/sweep/ of a copy of the repository's layout (its other folders linked), so that a
// plan's relative paths (../multitenant/e3.yaml, ../../data/swf/...) reach the shipped inputs.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz/fuzz_input.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep.hpp"

namespace {

// <tmp>/kubesim-fuzz-PID/examples/sweep/plan.yaml, beside links to the repository's folders.
std::string plan_path() {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") /
                        ("kubesim-fuzz-" + std::to_string(getpid()));
  const fs::path source = KUBESIM_SOURCE_DIR;
  fs::create_directories(root / "examples" / "sweep");
  std::error_code ignored;
  fs::create_directory_symlink(source / "data", root / "data", ignored);
  for (const auto& entry : fs::directory_iterator(source / "examples"))
    if (entry.path().filename() != "sweep")
      fs::create_directory_symlink(entry.path(), root / "examples" / entry.path().filename(), ignored);
  return (root / "examples" / "sweep" / "plan.yaml").string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  static const std::string path = plan_path();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return fuzz::expect_input_errors_only([&] {
    const SweepPlan plan = read_sweep_plan(path);
    for (const SweepCell& cell : plan.cells) {
      (void)plan.axis_values(cell);
      (void)plan.configuration_key(cell);
    }
    check_sweep_cells(plan);
  });
}
