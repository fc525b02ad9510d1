// The process that starts the `bloomcodec` children of the damaged-input tests and reports each
// one's wait status and peak RSS (see damaged_runner.cc for why it exists). Built without
// sanitizers and allocating nothing per child, so its own image stays small and constant.
//
//   damaged_launcher BLOOMCODEC_CLI     requests on standard input, replies on standard output
//
// Request: u64 argument count, then per argument and for the io directory a u64 length and the
// bytes. Replies: the child's pid (pid_t) at once, then i64 wait status and i64 ru_maxrss (KiB)
// when it has ended. End of input ends the launcher.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

extern char** environ;

namespace {

constexpr std::size_t kMaxArgs = 64;
constexpr std::size_t kMaxBytes = 1 << 16;
char g_buffer[kMaxBytes];  // every string of one request, NUL-terminated, back to back

bool ReadAll(void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(0, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool WriteAll(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(1, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Reads one length-prefixed string into the buffer at `used`; returns its start or nullptr.
char* ReadString(std::size_t& used) {
  std::uint64_t n = 0;
  if (!ReadAll(&n, sizeof n) || n + 1 > kMaxBytes - used) return nullptr;
  char* s = g_buffer + used;
  if (!ReadAll(s, n)) return nullptr;
  s[n] = '\0';
  used += n + 1;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char* binary = argv[1];
  char out_path[4200], err_path[4200];
  for (;;) {
    std::uint64_t count = 0;
    if (!ReadAll(&count, sizeof count) || count + 2 > kMaxArgs) return 0;
    char* child_argv[kMaxArgs];
    child_argv[0] = binary;
    std::size_t used = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      child_argv[i + 1] = ReadString(used);
      if (child_argv[i + 1] == nullptr) return 0;
    }
    child_argv[count + 1] = nullptr;
    const char* io = ReadString(used);
    if (io == nullptr) return 0;
    std::snprintf(out_path, sizeof out_path, "%s/.stdout", io);
    std::snprintf(err_path, sizeof err_path, "%s/.stderr", io);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    if (posix_spawn(&pid, binary, &actions, nullptr, child_argv, environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    if (!WriteAll(&pid, sizeof pid)) return 0;
    int status = -1;
    struct rusage usage {};
    if (pid > 0) {
      while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
    }
    const std::int64_t reply[2] = {status, usage.ru_maxrss};
    if (!WriteAll(reply, sizeof reply)) return 0;
  }
}
