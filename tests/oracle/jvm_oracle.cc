#include "oracle/jvm_oracle.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace bloomcodec::testing {
namespace {

constexpr const char* kWhat = "java oracle";
// Larger answers than this mean a confused protocol, not a real batch.
constexpr std::uint32_t kMaxAnswerBytes = 1u << 30;

int MillisecondsUntil(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

JvmOracle& JvmOracle::Shared() {
  static JvmOracle* oracle = [] {
    auto* o = new JvmOracle();
    Status s = o->Start(BLOOMCODEC_JAVA, BLOOMCODEC_ORACLE_JAR);
    if (!s.ok()) o->failure_ = s.ToString();
    return o;
  }();
  return *oracle;
}

JvmOracle::~JvmOracle() { Stop(); }

Status JvmOracle::Start(const std::string& java, const std::string& jar) {
  // A write to a JVM that died must fail with EPIPE, not kill the test process.
  ::signal(SIGPIPE, SIG_IGN);
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return Status::IoError(kWhat, std::strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return Status::IoError(kWhat, std::strerror(errno));
  }
  // -XX:-OmitStackTraceInFastThrow: after many identical implicit exceptions HotSpot's compiled
  // code throws a preallocated one without a message ("ArrayIndexOutOfBoundsException" instead
  // of "...: Index -3 out of bounds for length 21"); the refusal texts need the message.
  std::vector<std::string> args = {
      java, "-XX:-OmitStackTraceInFastThrow", "-XX:+UseSerialGC", "-Xmx1g", "-Xshare:auto", "-cp",
      jar,  "bloomcodec.oracle.Main"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) return Status::IoError(kWhat, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: stdin/stdout are the pipes; stderr stays the test's, so JVM errors show in the log.
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::execv(argv[0], argv.data());
    const char msg[] = "bloomcodec java oracle: exec of the java binary failed\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  pid_ = pid;
  to_jvm_ = in_pipe[1];
  from_jvm_ = out_pipe[0];
  return Status();
}

void JvmOracle::Stop() {
  if (to_jvm_ >= 0) ::close(to_jvm_);  // EOF: the oracle's loop returns
  if (from_jvm_ >= 0) ::close(from_jvm_);
  to_jvm_ = from_jvm_ = -1;
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 200; ++i) {  // up to 2 s for a clean exit
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

Status JvmOracle::Died(const std::string& what) {
  std::string message = what;
  if (pid_ > 0) {
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 100 && done == 0; ++i) {  // let a dying JVM finish for up to 1 s
      done = ::waitpid(pid_, &status, WNOHANG);
      if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == pid_) {
      pid_ = -1;
      if (WIFEXITED(status))
        message += "; the JVM exited with status " + std::to_string(WEXITSTATUS(status));
      if (WIFSIGNALED(status))
        message += "; the JVM was killed by signal " + std::to_string(WTERMSIG(status));
    } else {
      ::kill(pid_, SIGKILL);  // stuck: it will not answer any more
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      message += "; the JVM was killed";
    }
  }
  failure_ = std::string(kWhat) + ": " + message + " (see the JVM's stderr above)";
  Stop();
  return Status::IoError(kWhat, message);
}

Status JvmOracle::WriteAll(ByteSpan bytes, std::chrono::steady_clock::time_point deadline) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    pollfd p{to_jvm_, POLLOUT, 0};
    int ready = ::poll(&p, 1, MillisecondsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Died("timed out writing a batch to the JVM");
    ssize_t n = ::write(to_jvm_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Died(std::string("writing to the JVM failed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return Status();
}

Status JvmOracle::ReadExactly(std::uint8_t* out, std::size_t n,
                              std::chrono::steady_clock::time_point deadline) {
  std::size_t done = 0;
  while (done < n) {
    pollfd p{from_jvm_, POLLIN, 0};
    int ready = ::poll(&p, 1, MillisecondsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Died("timed out waiting for the JVM's answer");
    ssize_t got = ::read(from_jvm_, out + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) return Died("the JVM closed its output (it died?)");
    if (got < 0) return Died(std::string("reading from the JVM failed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(got);
  }
  return Status();
}

Result<ByteVector> JvmOracle::Call(const OracleRequest& request, std::chrono::seconds timeout) {
  if (!failure_.empty()) return Status::IoError(kWhat, failure_);
  if (pid_ <= 0) return Status::IoError(kWhat, "not started");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  const ByteVector& payload = request.payload();
  std::uint8_t frame[4];
  auto size = static_cast<std::uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<std::uint8_t>(size >> (24 - 8 * i));
  BLOOMCODEC_RETURN_IF_ERROR(WriteAll(ByteSpan(frame, 4), deadline));
  BLOOMCODEC_RETURN_IF_ERROR(WriteAll(payload, deadline));

  BLOOMCODEC_RETURN_IF_ERROR(ReadExactly(frame, 4, deadline));
  std::uint32_t length = (std::uint32_t{frame[0]} << 24) | (std::uint32_t{frame[1]} << 16) |
                         (std::uint32_t{frame[2]} << 8) | frame[3];
  if (length == 0 || length > kMaxAnswerBytes) {
    return Died("implausible answer length " + std::to_string(length));
  }
  ByteVector answer(length);
  BLOOMCODEC_RETURN_IF_ERROR(ReadExactly(answer.data(), length, deadline));
  if (answer[0] != 0) {
    OracleAnswers error(ByteVector(answer.begin() + 1, answer.end()));
    return Status::IoError(kWhat, "the oracle refused the batch: " + error.Utf());
  }
  return ByteVector(answer.begin() + 1, answer.end());
}

}  // namespace bloomcodec::testing
