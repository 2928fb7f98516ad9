// Whole-run outputs: a run's files appear in --out all together or not at all.
//
// The run writes into a staging folder beside `out` (<parent>/.<name>.staging.<pid>); commit()
// puts it in place with one rename (renameat2 RENAME_EXCHANGE when `out` already exists, so
// there is no moment without `out`), then deletes what was there. A kill -9 at any moment
// therefore leaves `out` as it was or complete; the staging folder it leaves behind is removed
// by the next run into the same `out`. An exclusive lock (flock on <parent>/.<name>.lock, released
// by the kernel when the process dies; the file removed after the run, core/file_lock.hpp)
// stops two runs from writing one `out` at once: the second fails at start with a clear error
// instead of interleaving.
//
// An existing `out` is replaced only when it is empty or was written by kubesim (it holds the
// marker file kMarker, or the jobs.csv and pods.csv, or compare.html, that versions before the
// marker wrote): a typo such as `--out ~` never deletes a user's folder.
#pragma once

#include <string>

#include "core/file_lock.hpp"

namespace kubesim {

class OutputDirectory {
 public:
  static constexpr const char* kMarker = ".kubesim-output";

  // Locks `out`, checks that it may be replaced, removes stale staging folders, and creates
  // an empty staging folder. Throws std::runtime_error with a one-line reason.
  explicit OutputDirectory(std::string out);
  ~OutputDirectory();  // without commit(): the staging folder is removed, `out` untouched
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Where the run writes its files (an absolute path).
  const std::string& staging() const { return staging_; }
  const std::string& out() const { return out_; }
  // Writes the marker, swaps the staging folder in as `out` and deletes the previous `out`.
  void commit();

 private:
  std::string out_;
  std::string staging_;
  FileLock lock_;  // <parent>/.<name>.lock, removed after the run
  bool committed_ = false;
};

}  // namespace kubesim
