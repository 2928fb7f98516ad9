#include "cli/sweep_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "cli/policy_option.hpp"
#include "core/file_lock.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "sweep/batch.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep.hpp"

namespace kubesim {

namespace fs = std::filesystem;

namespace {

// Cells done, running and left, redrawn in place on a terminal at most ten times a second.
// Nothing is printed when stdout is not a terminal. Wall time is for display only.
class SweepProgress {
 public:
  explicit SweepProgress(bool enabled) : enabled_(enabled && ::isatty(1) != 0) {}
  void update(std::size_t done, std::size_t running, std::size_t left) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (left + running > 0 && shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const std::size_t total = done + running + left;
    const int width = 30;
    const int filled = total ? static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * width) : width;
    std::printf("\r[%s%s] %zu done, %zu running, %zu left ", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), done, running, left);
    std::fflush(stdout);
    shown_ = true;
  }
  ~SweepProgress() {
    if (shown_) std::printf("\n");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

}  // namespace

SweepCommand::SweepCommand(CLI::App& app, std::string version) : version_(std::move(version)) {
  cmd_ = app.add_subcommand("sweep", "run a sweep plan's cells (axes x seeds) locally, on Slurm or as a Kubernetes Indexed Job");
  cmd_->add_option("plan", plan_, "sweep plan YAML (format: docs/reference/sweep-plan.md)")->check(CLI::ExistingFile);
  cmd_->add_option("--out", out_, "output folder (default: results/sweep/<plan name>)");
  cmd_->add_option("--jobs,-j", threads_, "worker threads (0: one per hardware thread); outputs do not depend on it")
      ->capture_default_str();
  cmd_->add_option("--cells", chunk_, "run only chunk I of the cells (a Slurm array task or Kubernetes completion index)");
  add_policy_option(cmd_, policies_);
  cmd_->add_option("--cells-per-task", cells_per_task_, "cells per chunk (default: the plan's cellsPerTask, else 1)");
  cmd_->add_flag("--slurm", slurm_, "write and submit (sbatch) one job array, one task per chunk");
  cmd_->add_option("--partition", partition_, "--slurm: the partition");
  cmd_->add_option("--time", time_, "--slurm: each task's time limit (sbatch --time)");
  cmd_->add_flag("--wait", wait_, "--slurm: wait for the array to finish, then merge");
  cmd_->add_option("--emit", emit_, "write a manifest instead of running: k8s-indexed-job")
      ->check(CLI::IsMember({"k8s-indexed-job"}));
  cmd_->add_flag("--quiet", quiet_, "print no summary and no progress bar");
  merge_cmd_ = cmd_->add_subcommand("merge", "merge the finished cells of OUT into OUT/results.csv and OUT/sweep.html");
  merge_cmd_->add_option("out", merge_out_, "the sweep's output folder")->required();
  merge_cmd_->add_flag("--quiet", quiet_, "print no summary");  // as every subcommand that prints one
  cmd_->footer(
      "Writes OUT/cells/<id>/ per cell (complete or absent: a re-run skips finished cells), OUT/results.csv (one\n"
      "row per cell and tenant, the axes as columns) and OUT/sweep.html (effect of each axis, best cells).\n"
      "On a Slurm cluster (shared filesystem): kubesim sweep PLAN --out OUT --slurm --cells-per-task 8 --wait\n"
      "Examples:\n"
      "  kubesim sweep examples/sweep/e3-schedulers.yaml --out results/e3-sweep\n"
      "  kubesim sweep examples/sweep/e3-schedulers.yaml --out results/e3-sweep --emit k8s-indexed-job\n"
      "  kubesim sweep merge results/e3-sweep");
}

int SweepCommand::run() {
  if (merge_cmd_->parsed()) return merge(merge_out_);
  if (plan_.empty()) throw InputError("", 0, "sweep needs a plan: kubesim sweep PLAN.yaml (or kubesim sweep merge OUT)");
  return run_plan();
}

int SweepCommand::merge(const std::string& out) {
  const SweepMerge m = merge_sweep(out);
  if (!quiet_)
    std::printf("kubesim sweep merge: %zu cells, %zu rows: %s/results.csv, %s/sweep.html\n", m.cells, m.rows, out.c_str(),
                out.c_str());
  return 0;
}

int SweepCommand::run_plan() {
  const auto wall_start = std::chrono::steady_clock::now();
  if (!slurm_ && (wait_ || !partition_.empty() || !time_.empty()))
    throw InputError("", 0, "--partition, --time and --wait go with --slurm");
  if (slurm_ && (!emit_.empty() || chunk_ >= 0)) throw InputError("", 0, "--slurm goes without --emit and --cells");
  // A Slurm task or completion index runs `kubesim sweep PLAN --cells I` without this command
  // line's policies: they belong in the plan's pythonPolicies there.
  if (!policies_.empty() && (slurm_ || !emit_.empty()))
    throw InputError("", 0, "--policy goes without --slurm and --emit: declare the policies in the plan's pythonPolicies");
  SweepPlan plan = read_sweep_plan(plan_, [&](std::vector<std::string> specs) {
    specs.insert(specs.end(), policies_.begin(), policies_.end());
    return load_policies(specs);
  });
  if (cells_per_task_ > 0) plan.cells_per_task = cells_per_task_;
  const std::string out = out_.empty() ? "results/sweep/" + plan.name : out_;  // docs/reference/running.md
  SweepRunOptions options;
  options.out = out;
  options.threads = threads_;
  options.version = version_;
  if (chunk_ >= 0) {  // one array task / completion index
    options.chunk = static_cast<std::size_t>(chunk_);
    const SweepRunStats s = run_sweep_cells(plan, options);
    if (!quiet_)
      std::printf("kubesim sweep: chunk %lld: %zu cells, %zu already finished, %zu run\n", chunk_, s.cells, s.skipped, s.ran);
    return 0;
  }
  // Nothing is written before every cell's configuration is checked; then OUT is locked (one
  // sweep at a time writes it), what a killed sweep left is cleaned, the merged results of an
  // earlier sweep are removed (sweep merge rewrites them) and sweep.json is written.
  FileLock lock;
  const auto start_writing = [&] {
    make_output_directory(out);
    if (!lock.try_lock(out + "/.sweep.lock"))
      throw InputError(out, 0, "another kubesim sweep is writing this folder; wait for it or choose another --out");
    remove_stale_cell_folders(out);
    std::error_code ec;
    for (const char* merged : {"results.csv", "sweep.html"}) fs::remove(fs::path(out) / merged, ec);
    write_sweep_manifest(plan, out);
  };
  if (emit_ == "k8s-indexed-job" || slurm_) {
    check_sweep_cells(plan);
    start_writing();
  }
  if (emit_ == "k8s-indexed-job") {
    const std::string path = out + "/k8s/" + sweep_job_name(plan) + ".yaml";
    make_output_directory(out + "/k8s");
    write_file_atomically(path, k8s_indexed_job(plan, plan_, out, fs::current_path().string()));
    if (!quiet_)
      std::printf("kubesim sweep: %zu cells in %zu completion indexes: %s\nthen: kubesim sweep merge %s\n", plan.cells.size(),
                  plan.chunks(), path.c_str(), out.c_str());
    return 0;
  }
  if (slurm_) {
    SlurmOptions so{partition_, time_};
    make_output_directory(out + "/slurm");
    const std::string script = absolute(out) + "/slurm/sweep.sbatch";
    write_file_atomically(script, slurm_array_script(plan, fs::read_symlink("/proc/self/exe").string(), absolute(plan_), absolute(out), so));
    const std::string command = std::string("sbatch --parsable") + (wait_ ? " --wait" : "") + " '" + script + "'";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run sbatch");
    std::string job;
    char buf[256];
    while (std::fgets(buf, sizeof buf, pipe)) job += buf;
    const int status = ::pclose(pipe);
    while (!job.empty() && (job.back() == '\n' || job.back() == '\r')) job.pop_back();
    if (!wait_ || job.empty()) {
      if (status != 0) throw std::runtime_error("sbatch failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
      if (!quiet_)
        std::printf("kubesim sweep: submitted job array %s (%zu tasks, %zu cells) from %s\nthen: kubesim sweep merge %s\n",
                    job.c_str(), plan.chunks(), plan.cells.size(), script.c_str(), out.c_str());
      return 0;
    }
    if (status != 0)
      std::fprintf(stderr, "kubesim: sweep: job array %s ended with a failed task (exit status %d); merging what finished\n",
                   job.c_str(), WEXITSTATUS(status));
    return merge(out);
  }
  options.before_writing = start_writing;
  SweepProgress progress(!quiet_);
  options.progress = [&](std::size_t done, std::size_t running, std::size_t left) { progress.update(done, running, left); };
  const SweepRunStats s = run_sweep_cells(plan, options);
  const SweepMerge m = merge_sweep(out);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!quiet_) {
    std::printf("kubesim sweep %s: %zu cells (%zu finished before, %zu run) on %u thread(s) in %.3f s wall\n",
                plan.name.c_str(), s.cells, s.skipped, s.ran, s.threads, wall);
    std::printf("outputs: %s/results.csv (%zu rows), %s/sweep.html, %s/cells/<id>/\n", out.c_str(), m.rows, out.c_str(),
                out.c_str());
  }
  return 0;
}

}  // namespace kubesim
