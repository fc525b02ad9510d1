#include "cli/cli_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bloomcodec/input_file.h"
#include "support/test_support.h"

extern char** environ;

namespace bloomcodec::testing {

namespace {
bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}
}  // namespace

CliDir::CliDir() {
  std::string pattern = std::filesystem::temp_directory_path().string() + "/bloomcodec-cli-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  path_ = pattern;
}

CliDir::~CliDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string CliDir::Write(const std::string& name, const std::string& contents) const {
  return Write(name, AsBytes(contents));
}

std::string CliDir::Write(const std::string& name, ByteSpan contents) const {
  std::string path = Path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(contents.data()),
            static_cast<std::streamsize>(contents.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
  return path;
}

namespace {

// Keeps the --json document of a schema'd subcommand for tests/cli/validate_schemas.py.
void KeepJsonDocument(const std::vector<std::string>& args, const CliRun& run) {
  const char* dir = std::getenv("BLOOMCODEC_JSON_DIR");
  if (dir == nullptr || *dir == '\0' || args.empty() || run.out.empty()) return;
  if (std::find(args.begin(), args.end(), "--json") == args.end()) return;
  const std::string& command = args[0];
  if (command != "verify" && command != "inspect" && command != "convert" && command != "repair") {
    return;
  }
  std::string test = "unknown";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    test = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : test) {
      if (c == '/') c = '_';
    }
  }
  std::string path = std::string(dir) + "/" + command + "." + test + ".XXXXXX.json";
  const int fd = ::mkstemps(path.data(), 5);
  if (fd < 0) {
    ADD_FAILURE() << "cannot keep the --json document in " << dir << ": " << std::strerror(errno);
    return;
  }
  std::size_t done = 0;
  while (done < run.out.size()) {
    const ssize_t n = ::write(fd, run.out.data() + done, run.out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ADD_FAILURE() << "cannot write " << path << ": " << std::strerror(errno);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace

CliRun RunCli(const std::vector<std::string>& args, const std::string& stdin_data) {
  CliDir io;
  std::string in_path = io.Write("stdin", stdin_data);
  std::string out_path = io.Path("stdout");
  std::string err_path = io.Path("stderr");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);

  std::string binary = BLOOMCODEC_CLI;
  std::vector<char*> argv;
  argv.push_back(binary.data());
  std::vector<std::string> copies(args);
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);

  CliRun run;
  pid_t pid = 0;
  int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << binary << ": error " << rc;
    return run;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid failed";
      return run;
    }
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = ReadAnyText(out_path);
  run.err = ReadAnyText(err_path);
  KeepJsonDocument(args, run);
  return run;
}

CliRun RunCliOnTerminal(const std::vector<std::string>& args) {
  CliRun run;
  int terminal = -1, device = -1;
  if (::openpty(&terminal, &device, nullptr, nullptr, nullptr) != 0) {
    ADD_FAILURE() << "openpty: " << std::strerror(errno);
    return run;
  }
  CliDir io;
  const std::string out_path = io.Path("stdout");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, device, 2);
  posix_spawn_file_actions_addclose(&actions, terminal);
  std::string binary = BLOOMCODEC_CLI;
  std::vector<std::string> copies(args);
  std::vector<char*> argv{binary.data()};
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(device);
  if (rc != 0) {
    ::close(terminal);
    ADD_FAILURE() << "cannot start " << binary << ": error " << rc;
    return run;
  }
  // Read until the last writer has gone (EIO on Linux), so the child never blocks on a full
  // terminal buffer.
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(terminal, buf, sizeof buf);
    if (n > 0) {
      run.err.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(terminal);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = ReadAnyText(out_path);
  return run;
}

ByteVector ReadAnyFile(const std::string& path) {
  auto file = InputFile::Open(path);
  if (!file.ok()) {
    ADD_FAILURE() << file.status().ToString();
    return {};
  }
  return ByteVector(file->bytes().begin(), file->bytes().end());
}

std::string ReadAnyText(const std::string& path) {
  ByteVector bytes = ReadAnyFile(path);
  return std::string(bytes.begin(), bytes.end());
}

std::string FixtureForCli(const std::string& relative) {
  std::string path = FixturePath(relative);
  if (!Exists(path) && Exists(path + ".gz")) return path + ".gz";
  return path;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

std::string FirstLines(const std::string& text, std::size_t n) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t nl = text.find('\n', end);
    if (nl == std::string::npos) return text;
    end = nl + 1;
  }
  return text.substr(0, end);
}

std::size_t LineCount(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace bloomcodec::testing
