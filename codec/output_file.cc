#include "bloomcodec/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace bloomcodec {

namespace {

Status WriteAll(int fd, ByteSpan data, const std::string& name) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(name, std::string("cannot write: ") + std::strerror(errno));
    }
    data = data.subspan(static_cast<std::size_t>(n));
  }
  return Status();
}

Result<ByteVector> Gzip(ByteSpan in, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::IoError(path, "zlib initialisation failed");
  }
  ByteVector out(deflateBound(&z, static_cast<uLong>(in.size())) + 64);
  std::size_t consumed = 0, produced = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    std::size_t chunk = std::min<std::size_t>(in.size() - consumed, 1u << 30);
    z.next_in = const_cast<Bytef*>(in.data() + consumed);
    z.avail_in = static_cast<uInt>(chunk);
    if (produced == out.size()) out.resize(out.size() * 2);
    std::size_t room = std::min<std::size_t>(out.size() - produced, 1u << 30);
    z.next_out = out.data() + produced;
    z.avail_out = static_cast<uInt>(room);
    bool last = consumed + chunk == in.size();
    rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
    consumed += chunk - z.avail_in;
    produced += room - z.avail_out;
    if (rc == Z_STREAM_ERROR) break;
  }
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::IoError(path, "gzip compression failed");
  out.resize(produced);
  return out;
}

// The temporary files being written, for a signal handler to remove. A handler may only read
// memory that is complete, so a slot is published (kReady) after its path is copied, and freed
// after the rename: a signal between rename and release unlinks a name that no longer exists.
enum SlotState : int { kFree, kFilling, kReady };
struct InFlightSlot {
  std::atomic<int> state{kFree};
  char path[4096];
};
std::array<InFlightSlot, 16> g_in_flight;

// The slot now holding `path`, or nullptr when every slot is taken or the path is too long (the
// file is then written unregistered: an interrupt may leave it, as without this registry).
InFlightSlot* Register(const std::string& path) {
  if (path.size() >= sizeof(InFlightSlot::path)) return nullptr;
  for (InFlightSlot& slot : g_in_flight) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(kReady);
    return &slot;
  }
  return nullptr;
}

void Release(InFlightSlot* slot) {
  if (slot != nullptr) slot->state.store(kFree);
}

void RemoveAndReraise(int signal_number) {
  RemoveInFlightTemporaryFiles();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void RemoveInFlightTemporaryFiles() {
  for (InFlightSlot& slot : g_in_flight) {
    if (slot.state.load() == kReady) ::unlink(slot.path);
  }
}

void InstallInterruptCleanup() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(signal_number, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = RemoveAndReraise;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
}

Status WriteFileAtomically(const std::string& path, ByteSpan contents) {
  ByteVector compressed;
  if (std::string_view(path).ends_with(".gz")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(compressed, Gzip(contents, path));
    contents = compressed;
  }
  if (path == "-") return WriteAll(1, contents, "<stdout>");

  std::string dir = ".", base = path;
  if (auto slash = path.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
    base = path.substr(slash + 1);
  }
  std::string temp = dir + "/." + base + ".tmp.XXXXXX";
  // Blocked while the file is created and registered, so that no interrupt falls between them.
  sigset_t interrupts, previous;
  sigemptyset(&interrupts);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, signal_number);
  pthread_sigmask(SIG_BLOCK, &interrupts, &previous);
  int fd = mkstemp(temp.data());
  InFlightSlot* slot = fd >= 0 ? Register(temp) : nullptr;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0) {
    return Status::IoError(path, std::string("cannot create a temporary file in ") + dir + ": " +
                                     std::strerror(errno));
  }
  Status s = WriteAll(fd, contents, path);
  if (s.ok() && fchmod(fd, 0644) != 0) {
    s = Status::IoError(path, std::string("cannot set permissions: ") + std::strerror(errno));
  }
  if (s.ok() && fsync(fd) != 0) {
    s = Status::IoError(path, std::string("cannot sync: ") + std::strerror(errno));
  }
  if (::close(fd) != 0 && s.ok()) {
    s = Status::IoError(path, std::string("cannot close: ") + std::strerror(errno));
  }
  if (s.ok() && std::rename(temp.c_str(), path.c_str()) != 0) {
    s = Status::IoError(path, std::string("cannot rename the temporary file into place: ") +
                                  std::strerror(errno));
  }
  if (!s.ok()) ::unlink(temp.c_str());
  Release(slot);
  return s;
}

bool IsSameFile(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace bloomcodec
