#include "myrocks/mariadb_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

extern char** environ;

namespace bloomcodec::testing {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last `n` bytes of a log, for messages.
std::string Tail(const std::string& path, std::size_t n = 2000) {
  const std::string text = ReadText(path);
  return text.size() <= n ? text : text.substr(text.size() - n);
}

int StatusOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Starts `argv` with its standard streams redirected; -1 when it cannot.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& stdin_path,
            const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(
      &actions, 0, stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// Waits up to `limit` for `pid` to end; its exit status, or nullopt-like -2 when still running.
int WaitFor(pid_t pid, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return StatusOf(status);
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() >= until) return -2;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

std::string MissingMyRocksPrograms() {
  for (const char* program : {BLOOMCODEC_MARIADBD, BLOOMCODEC_MARIADB,
                              BLOOMCODEC_MARIADB_INSTALL_DB, BLOOMCODEC_HA_ROCKSDB}) {
    if (std::string(program).empty() || !std::filesystem::exists(program)) {
      return "MyRocks is needed (mariadbd, mariadb, mariadb-install-db, ha_rocksdb.so): "
             "scripts/install-deps --test installs mariadb-server and mariadb-plugin-rocksdb; "
             "then configure the build again";
    }
  }
  return "";
}

int RunProgram(const std::vector<std::string>& argv, const std::string& stdin_path,
               const std::string& out_path, const std::string& err_path) {
  const pid_t pid = Spawn(argv, stdin_path, out_path, err_path);
  if (pid < 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return StatusOf(status);
}

MariaDbServer::MariaDbServer(std::string dir, std::string config_lines)
    : dir_(std::move(dir)), config_lines_(std::move(config_lines)) {}

MariaDbServer::~MariaDbServer() { Kill(); }

bool MariaDbServer::Fail(std::string what) {
  error_ = std::move(what) + "\n--- the server's error log ends:\n" + Tail(dir_ + "/err.log");
  return false;
}

bool MariaDbServer::Start() {
  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir() + "/mysql", ec)) {
    if (!Install()) return false;
  }
  return Launch();
}

bool MariaDbServer::Install() {
  std::vector<std::string> install = {BLOOMCODEC_MARIADB_INSTALL_DB, "--no-defaults",
                                      "--datadir=" + data_dir(),
                                      "--auth-root-authentication-method=normal", "--skip-test-db"};
  const bool root = geteuid() == 0;
  if (root) install.push_back("--user=root");
  if (int rc = RunProgram(install, "", dir_ + "/install.out", dir_ + "/install.err"); rc != 0) {
    return Fail("mariadb-install-db exited " + std::to_string(rc) + ": " +
                Tail(dir_ + "/install.err"));
  }
  return true;
}

bool MariaDbServer::Launch() {
  const bool root = geteuid() == 0;
  {
    std::ofstream cnf(dir_ + "/my.cnf");
    cnf << "[mariadbd]\n" << config_lines_;
  }
  // --defaults-file must come first; it keeps /etc/mysql out.
  std::vector<std::string> server = {BLOOMCODEC_MARIADBD,
                                     "--defaults-file=" + dir_ + "/my.cnf",
                                     "--datadir=" + data_dir(),
                                     "--socket=" + dir_ + "/sock",
                                     "--pid-file=" + dir_ + "/pid",
                                     "--skip-networking",
                                     "--log-error=" + dir_ + "/err.log"};
  if (root) server.push_back("--user=root");  // mariadbd refuses to run as root otherwise
  // A restart appends to the same log: only what this start writes counts.
  const std::size_t log_from = ReadText(dir_ + "/err.log").size();
  pid_ = Spawn(server, "", dir_ + "/server.out", dir_ + "/server.err");
  if (pid_ < 0) return Fail("cannot start " + std::string(BLOOMCODEC_MARIADBD));
  return WaitReady(log_from);
}

bool MariaDbServer::WaitReady(std::size_t log_from) {
  // A limit on waiting (a server that never comes up), not a timed assertion.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    const std::string log = ReadText(dir_ + "/err.log");
    if (log.size() > log_from && log.find("ready for connections", log_from) != std::string::npos) {
      return true;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Fail("mariadbd exited " + std::to_string(StatusOf(status)) + " while starting");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Fail("mariadbd did not take connections within 60 s");
}

bool MariaDbServer::Sql(const std::string& statements, std::string& out) {
  const std::string in_path = dir_ + "/statements.sql";
  {
    std::ofstream in(in_path);
    in << statements << "\n";
  }
  const std::vector<std::string> client = {
      BLOOMCODEC_MARIADB, "--no-defaults", "--socket=" + dir_ + "/sock",
      "-uroot",           "--batch",       "--skip-column-names"};
  const int rc = RunProgram(client, in_path, dir_ + "/client.out", dir_ + "/client.err");
  out = ReadText(dir_ + "/client.out");
  if (rc != 0) {
    return Fail("mariadb exited " + std::to_string(rc) + ": " + ReadText(dir_ + "/client.err"));
  }
  return true;
}

pid_t MariaDbServer::StartClient(const std::string& statements, const std::string& out_path) {
  const std::string in_path = out_path + ".sql";
  {
    std::ofstream in(in_path);
    in << statements << "\n";
  }
  return Spawn({BLOOMCODEC_MARIADB, "--no-defaults", "--socket=" + dir_ + "/sock", "-uroot",
                "--batch", "--skip-column-names"},
               in_path, out_path, out_path + ".err");
}

int MariaDbServer::WaitClient(pid_t client) {
  int status = 0;
  if (client < 0 || waitpid(client, &status, 0) != client) return -1;
  return StatusOf(status);
}

void MariaDbServer::KillNow() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool MariaDbServer::Stop() {
  if (pid_ < 0) return Fail("the server is not running");
  std::string out;
  if (!Sql("SHUTDOWN;", out)) return false;
  const int rc = WaitFor(pid_, std::chrono::seconds(60));
  if (rc == -2) return Fail("mariadbd did not end within 60 s of SHUTDOWN");
  pid_ = -1;
  if (rc != 0) return Fail("mariadbd exited " + std::to_string(rc) + " after SHUTDOWN");
  return true;
}

void MariaDbServer::Kill() {
  if (pid_ < 0) return;
  kill(pid_, SIGTERM);
  if (WaitFor(pid_, std::chrono::seconds(30)) == -2) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

}  // namespace bloomcodec::testing
