#include "core/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kubesim {

bool FileLock::try_lock(const std::string& path) {
  unlock();
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return false;
    }
    // The lock is ours if the path still names the file locked (a previous holder may have
    // unlinked it between our open and our flock).
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      path_ = path;
      fd_ = fd;
      return true;
    }
    ::close(fd);
  }
}

void FileLock::unlock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while locked: nobody else holds this file
  ::close(fd_);             // releases the flock
  fd_ = -1;
}

}  // namespace kubesim
