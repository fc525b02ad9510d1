// Taking a database's LOCK both ways its writers take it (see database_lock.h).
#include "lsmrepair/database_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bloomcodec::lsmrepair {
namespace {

// "process 1234 (db_bench)", or "" when /proc does not say.
std::string ProcessName(long pid) {
  if (pid <= 0) return "";
  std::string comm;
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::getline(in, comm);
  return "process " + std::to_string(pid) + (comm.empty() ? "" : " (" + comm + ")");
}

// The process /proc/locks lists as holding a FLOCK on the file `fd` is open on (0: none found).
long FlockHolder(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return 0;
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
    std::istringstream fields(line);
    std::string number, kind, mode, access, file;
    long pid = 0;
    if (!(fields >> number >> kind)) continue;
    if (kind == "->") continue;  // a waiter
    if (!(fields >> mode >> access >> pid >> file)) continue;
    if (kind == "FLOCK" && file == id) return pid;
  }
  return 0;
}

std::string Holder(std::string_view who) {
  return who.empty() ? "another process" : std::string(who);
}

}  // namespace

Result<DatabaseLock> DatabaseLock::Acquire(const std::string& dir) {
  const std::string path = dir + "/LOCK";
  // As the writers do: the LOCK file is created when missing and never written.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError(path, std::string("open the database's LOCK: ") + std::strerror(errno));
  }
  DatabaseLock lock(path, fd);
  struct flock spec {};
  spec.l_type = F_WRLCK;
  spec.l_whence = SEEK_SET;  // l_start 0, l_len 0: the whole file
  if (::fcntl(fd, F_SETLK, &spec) != 0) {
    const int err = errno;
    if (err != EACCES && err != EAGAIN) {
      return Status::IoError(path, std::string("fcntl lock: ") + std::strerror(err));
    }
    struct flock holder {};
    holder.l_type = F_WRLCK;
    holder.l_whence = SEEK_SET;
    const long pid = ::fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK
                         ? static_cast<long>(holder.l_pid)
                         : 0;
    return Status::Refused(dir + ": the database is open: " + Holder(ProcessName(pid)) +
                           " holds its LOCK (an fcntl lock, as LevelDB, RocksDB and Pebble "
                           "take it); close the database before a repair");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      return Status::IoError(path, std::string("flock: ") + std::strerror(err));
    }
    return Status::Refused(dir + ": the database is open: " + Holder(ProcessName(FlockHolder(fd))) +
                           " holds its LOCK (a flock lock, as goleveldb takes it); close the "
                           "database before a repair");
  }
  return lock;
}

DatabaseLock::DatabaseLock(DatabaseLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

DatabaseLock& DatabaseLock::operator=(DatabaseLock&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DatabaseLock::~DatabaseLock() { Release(); }

void DatabaseLock::Release() {
  // Closing the only descriptor drops both locks.
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace bloomcodec::lsmrepair
