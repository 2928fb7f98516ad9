// An exclusive lock on a lock file that is removed again after use (flock(2) semantics: the
// kernel releases the lock when the process dies, so a kill -9 leaves no stale lock, only
// the file, which the next holder takes over and removes).
//
// Removing a lock file safely: the holder unlinks it while it still holds the lock; a process
// that opened the old file meanwhile gets the lock on an unlinked inode, sees that the path no
// longer names its file (or names another), and tries again on the path's new file.
#pragma once

#include <string>

namespace kubesim {

class FileLock {
 public:
  FileLock() = default;
  // Takes the lock on `path` (created when absent) without waiting: false when another
  // process holds it. Throws std::runtime_error when the file cannot be created.
  bool try_lock(const std::string& path);
  // Removes the lock file and releases the lock (also on destruction).
  void unlock();
  ~FileLock() { unlock(); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace kubesim
