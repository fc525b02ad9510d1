// File-system steps of a repair (see durable_io.h): each goes through the step hook, then the
// system call; a failure names the file and the call.
#include "lsmrepair/durable_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace bloomcodec::lsmrepair {
namespace {

StepHook g_hook = nullptr;

void Before(Step step, const std::string& path) {
  if (g_hook != nullptr) g_hook(step, path);
}

Status Errno(const std::string& path, std::string_view call) {
  return Status::IoError(path, std::string(call) + ": " + std::strerror(errno));
}

}  // namespace

std::string_view StepName(Step step) {
  switch (step) {
    case Step::kCreate: return "create";
    case Step::kWrite: return "write";
    case Step::kSync: return "fsync";
    case Step::kRename: return "rename";
    case Step::kLink: return "link";
    case Step::kUnlink: return "unlink";
    case Step::kMakeDirectory: return "mkdir";
    case Step::kSyncDirectory: return "fsync directory";
  }
  return "?";
}

void SetStepHook(StepHook hook) { g_hook = hook; }

Result<DurableWriter> DurableWriter::Create(const std::string& path) {
  Before(Step::kCreate, path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path, "open for writing");
  return DurableWriter(path, fd);
}

DurableWriter::DurableWriter(DurableWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

DurableWriter::~DurableWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status DurableWriter::WriteAll(const std::uint8_t* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Errno(path_, "write");
    data += w;
    n -= static_cast<std::size_t>(w);
    size_ += static_cast<std::uint64_t>(w);
  }
  return Status();
}

Status DurableWriter::Append(ByteSpan bytes) {
  if (bytes.empty()) return Status();
  Before(Step::kWrite, path_);
  return WriteAll(bytes.data(), bytes.size());
}

Status DurableWriter::CopyRange(int from_fd, std::uint64_t offset, std::uint64_t length) {
  if (length == 0) return Status();
  Before(Step::kWrite, path_);
  auto from = static_cast<off64_t>(offset);
  std::uint64_t left = length;
  while (left > 0) {
    const ssize_t n = ::copy_file_range(from_fd, &from, fd_, nullptr, left, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
      break;  // not between these files: copied through a bounded buffer below
    }
    if (n < 0) return Errno(path_, "copy_file_range");
    if (n == 0) return Status::IoError(path_, "copy_file_range: the source file ended early");
    left -= static_cast<std::uint64_t>(n);
    size_ += static_cast<std::uint64_t>(n);
  }
  std::vector<std::uint8_t> buffer(left > 0 ? 1 << 20 : 0);
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer.size()));
    const ssize_t r = ::pread(from_fd, buffer.data(), want, from);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Errno(path_, "pread of the table copied");
    if (r == 0) return Status::IoError(path_, "the table copied ended early");
    BLOOMCODEC_RETURN_IF_ERROR(WriteAll(buffer.data(), static_cast<std::size_t>(r)));
    from += r;
    left -= static_cast<std::uint64_t>(r);
  }
  return Status();
}

Status DurableWriter::Finish() {
  Before(Step::kSync, path_);
  if (::fsync(fd_) != 0) return Errno(path_, "fsync");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Errno(path_, "close");
  return Status();
}

Status WriteFileDurably(const std::string& path, ByteSpan bytes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(DurableWriter out, DurableWriter::Create(path));
  BLOOMCODEC_RETURN_IF_ERROR(out.Append(bytes));
  return out.Finish();
}

Status RenameFile(const std::string& from, const std::string& to) {
  Before(Step::kRename, to);
  if (::rename(from.c_str(), to.c_str()) != 0) return Errno(from, "rename to " + to);
  return Status();
}

Status LinkFile(const std::string& existing, const std::string& link) {
  Before(Step::kLink, link);
  if (::link(existing.c_str(), link.c_str()) != 0) return Errno(link, "link to " + existing);
  return Status();
}

Status RemoveFile(const std::string& path) {
  Before(Step::kUnlink, path);
  if (::unlink(path.c_str()) != 0) return Errno(path, "unlink");
  return Status();
}

Status MakeDirectory(const std::string& path) {
  Before(Step::kMakeDirectory, path);
  if (::mkdir(path.c_str(), 0755) != 0) return Errno(path, "mkdir");
  return Status();
}

Status SyncDirectory(const std::string& dir) {
  Before(Step::kSyncDirectory, dir);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(dir, "open directory");
  const int r = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (r != 0) return Errno(dir, "fsync directory");
  return Status();
}

}  // namespace bloomcodec::lsmrepair
