#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace kubesim {

AtomicFile::AtomicFile(std::string path, FileAccess access) : path_(std::move(path)) {
  tmp_path_ = path_ + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        access == FileAccess::kPrivate ? 0600 : 0666);
  if (fd >= 0 && access == FileAccess::kPrivate) ::fchmod(fd, 0600);  // a leftover temporary keeps its mode
  if (fd >= 0) file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot create " + tmp_path_ + ": " + std::strerror(err));
  }
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

void AtomicFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error("cannot write " + tmp_path_ + ": " + std::strerror(errno));
}

void AtomicFile::commit() {
  const bool flushed = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed || std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_path_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

void write_file_atomically(const std::string& path, std::string_view content, FileAccess access) {
  AtomicFile f(path, access);
  f.write(content);
  f.commit();
}

std::filesystem::path make_output_directory(const std::string& out_dir) {
  namespace fs = std::filesystem;
  const fs::path dir = out_dir.empty() ? fs::path(".") : fs::path(out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    throw std::runtime_error("cannot create output directory " + dir.string() + ": " +
                             (ec ? ec.message() : std::string("not a directory")));
  return dir;
}

}  // namespace kubesim
