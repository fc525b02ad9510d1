#include "cassandra/repair/file_ops.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bloomcodec::cassandra {
namespace {

Status Errno(const std::string& path, const char* what) {
  return Status::IoError(path, std::string(what) + ": " + std::strerror(errno));
}

// Retries a call interrupted by a signal.
template <typename F>
auto Retry(F&& f) {
  decltype(f()) r;
  do {
    r = f();
  } while (r < 0 && errno == EINTR);
  return r;
}

Status SyncFd(int fd, const std::string& path) {
  if (Retry([&] { return ::fsync(fd); }) != 0) {
    const Status s = Errno(path, "cannot fsync");
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return Errno(path, "cannot close");
  return Status();
}

}  // namespace

Result<struct stat> StatPath(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Errno(path, "cannot stat");
  return st;
}

Status FileOps::Write(const std::string& path, ByteSpan bytes, const struct stat* like) {
  const mode_t mode = like != nullptr ? (like->st_mode & 07777) : 0644;
  const int fd =
      Retry([&] { return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode); });
  if (fd < 0) return Errno(path, "cannot create");
  if (like != nullptr) {
    // open's mode passes through the umask; the copy must have the original's bits exactly.
    if (::fchmod(fd, like->st_mode & 07777) != 0) {
      const Status s = Errno(path, "cannot set the mode");
      ::close(fd);
      return s;
    }
    // Only root may give a file away; a process of the files' owner writes files it owns.
    if (::geteuid() == 0 && ::fchown(fd, like->st_uid, like->st_gid) != 0) {
      const Status s = Errno(path, "cannot set the owner");
      ::close(fd);
      return s;
    }
  }
  while (!bytes.empty()) {
    const ssize_t n = Retry([&] { return ::write(fd, bytes.data(), bytes.size()); });
    if (n < 0) {
      const Status s = Errno(path, "cannot write");
      ::close(fd);
      return s;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  if (::close(fd) != 0) return Errno(path, "cannot close");
  return Status();
}

Status FileOps::Fsync(const std::string& path) {
  const int fd = Retry([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
  if (fd < 0) return Errno(path, "cannot open to fsync");
  return SyncFd(fd, path);
}

Status FileOps::FsyncDir(const std::string& dir) {
  const int fd = Retry([&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (fd < 0) return Errno(dir, "cannot open the directory to fsync");
  return SyncFd(fd, dir);
}

Status FileOps::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return Errno(from, ("cannot rename to " + to).c_str());
  return Status();
}

Status FileOps::Link(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return Status();
  if (errno == EEXIST) {
    struct stat a {
    }, b{};
    if (::stat(from.c_str(), &a) == 0 && ::stat(to.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      return Status();
    }
    return Status::IoError(to, "exists and is not a link to " + from);
  }
  if (errno == EXDEV) {
    return Status::IoError(to, "cannot hard-link " + from +
                                   ": another file system (a backup directory must be on the "
                                   "same file system as the data)");
  }
  return Errno(to, ("cannot hard-link " + from).c_str());
}

Status FileOps::MakeDir(const std::string& dir, const struct stat* like) {
  const mode_t mode = like != nullptr ? (like->st_mode & 07777) : 0755;
  if (::mkdir(dir.c_str(), mode) == 0) {
    if (like != nullptr && ::geteuid() == 0 &&
        ::chown(dir.c_str(), like->st_uid, like->st_gid) != 0) {
      return Errno(dir, "cannot set the owner");
    }
    return Status();
  }
  if (errno == EEXIST) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status();
    return Status::IoError(dir, "exists and is not a directory");
  }
  return Errno(dir, "cannot create the directory");
}

Status FileOps::Remove(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Status();
  return Errno(path, "cannot remove");
}

}  // namespace bloomcodec::cassandra
