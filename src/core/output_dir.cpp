#include "core/output_dir.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/atomic_file.hpp"

namespace kubesim {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

void remove_all_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

}  // namespace

OutputDirectory::OutputDirectory(std::string out) {
  std::error_code ec;
  fs::path path = fs::absolute(out.empty() ? fs::path(".") : fs::path(out), ec).lexically_normal();
  if (ec) fail("cannot use output directory " + out + ": " + ec.message());
  if (!path.has_filename()) path = path.parent_path();  // "results/x/" -> "results/x"
  if (path == path.root_path()) fail("cannot use the root directory as output directory");
  out_ = path.string();
  const fs::path parent = path.parent_path();
  const std::string name = path.filename().string();
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent)) fail("cannot create output directory " + parent.string() + ": " + ec.message());

  const std::string lock_path = (parent / ("." + name + ".lock")).string();
  if (!lock_.try_lock(lock_path))
    fail("another kubesim run is writing " + out_ + " (locked: " + lock_path + "); wait for it or choose another --out");

  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) fail("output directory " + out_ + " exists and is not a directory");
    // Written by kubesim: the marker, or (outputs of versions before it) the files every run
    // or comparison writes.
    const bool ours = fs::exists(path / kMarker, ec) ||
                      (fs::exists(path / "jobs.csv", ec) && fs::exists(path / "pods.csv", ec)) ||
                      fs::exists(path / "compare.html", ec);
    if (!ours && !fs::is_empty(path, ec))
      fail("output directory " + out_ + " exists, is not empty and was not written by kubesim (no " +
           std::string(kMarker) + "): choose a new --out or empty it");
  }
  // Staging folders of runs that died before commit (we hold the lock, so none is live).
  const std::string stale_prefix = "." + name + ".staging.";
  for (const auto& entry : fs::directory_iterator(parent, ec))
    if (entry.path().filename().string().rfind(stale_prefix, 0) == 0) remove_all_quietly(entry.path());

  staging_ = (parent / (stale_prefix + std::to_string(::getpid()))).string();
  fs::create_directory(staging_, ec);
  if (ec) fail("cannot create " + staging_ + ": " + ec.message());
}

OutputDirectory::~OutputDirectory() {
  if (!committed_ && !staging_.empty()) remove_all_quietly(staging_);
  lock_.unlock();  // removes the lock file
}

void OutputDirectory::commit() {
  write_file_atomically((fs::path(staging_) / kMarker).string(), "written by kubesim; replaced by the next run\n");
  std::error_code ec;
  if (fs::exists(out_, ec)) {
    // Atomic swap: `out` is the new run from here on, and the staging name holds the old one.
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, out_.c_str(), RENAME_EXCHANGE) != 0)
      fail("cannot replace " + out_ + ": " + std::strerror(errno));
  } else if (::rename(staging_.c_str(), out_.c_str()) != 0) {
    fail("cannot create " + out_ + ": " + std::strerror(errno));
  }
  committed_ = true;
  remove_all_quietly(staging_);  // the previous outputs, if any
}

}  // namespace kubesim
