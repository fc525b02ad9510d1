// An LSM database's LOCK, held the way its writers hold it, so that no writer can open the
// database while a repair changes it (and a repair refuses a database a writer has open).
// Internal to formats/lsmrepair.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(DatabaseLock lock, DatabaseLock::Acquire(dir));
//   ... change the database; the lock is released when `lock` goes out of scope.
//
// The writers lock dir/LOCK (created when missing) in two ways that do not see each other on
// Linux, so both are taken, the first failure refusing:
//   - fcntl(F_SETLK, F_WRLCK) on the whole file: LevelDB (PosixEnv::LockFile), RocksDB (the
//     same), Pebble (vfs.Default.Lock); Mojang's fork is LevelDB's.
//   - flock(LOCK_EX | LOCK_NB): goleveldb (storage/file_storage_unix.go setFileLock).
// The refusal names the process holding the lock when the kernel tells (F_GETLK for fcntl
// locks, /proc/locks for flock ones): best effort, the lock is what counts.
// fcntl locks belong to the process: a database this same process has open does not stop the
// fcntl lock (its writer's flock would), and closing any descriptor of LOCK in this process
// drops the fcntl lock; a repair opens LOCK through this class only.
#pragma once

#include <string>

#include "bloomcodec/status.h"

namespace bloomcodec::lsmrepair {

class DatabaseLock {
 public:
  static Result<DatabaseLock> Acquire(const std::string& dir);
  DatabaseLock(DatabaseLock&& other) noexcept;
  DatabaseLock& operator=(DatabaseLock&& other) noexcept;
  ~DatabaseLock();

  const std::string& path() const { return path_; }

 private:
  DatabaseLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void Release();

  std::string path_;
  int fd_ = -1;
};

}  // namespace bloomcodec::lsmrepair
