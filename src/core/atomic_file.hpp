// Output files are written to a temporary sibling and renamed into place on commit(), so an
// interrupted or failed run never leaves a half-written file that looks complete.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace kubesim {

// kPrivate: readable and writable by the owner only (0600), from creation on; for files that
// hold credentials (serve's kubeconfig and TLS key).
enum class FileAccess { kShared, kPrivate };

class AtomicFile {
 public:
  // Throws std::runtime_error if it cannot be created.
  explicit AtomicFile(std::string path, FileAccess access = FileAccess::kShared);
  ~AtomicFile();                          // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view text);
  void commit();  // flush, close, rename; throws std::runtime_error on failure

 private:
  std::string path_;
  std::string tmp_path_;
  std::FILE* file_ = nullptr;
};

// Writes `content` to `path` atomically.
void write_file_atomically(const std::string& path, std::string_view content,
                           FileAccess access = FileAccess::kShared);

// Creates the output directory `out_dir` ("" means the current directory) and its parents, and
// returns it; throws std::runtime_error("cannot create output directory <dir>: <reason>").
std::filesystem::path make_output_directory(const std::string& out_dir);

}  // namespace kubesim
