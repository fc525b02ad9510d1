// A private MariaDB server for one test: its data directory, socket, configuration and logs in a
// directory the caller owns, no network, no system configuration (--no-defaults style: the
// server reads only the file given). Stopped when the object goes, whatever happened.
//
//   MariaDbServer server(dir.path(), "plugin-load-add=ha_rocksdb\n");
//   ASSERT_TRUE(server.Start()) << server.error();
//   std::string out;
//   ASSERT_TRUE(server.Sql("SELECT 1", out)) << server.error();
//   ASSERT_TRUE(server.Stop()) << server.error();  // a clean SHUTDOWN, the process reaped
//   server.KillNow(); ASSERT_TRUE(server.Start());  // or a crash, then a restart on its data
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace bloomcodec::testing {

// Runs `argv` (argv[0] a path) with standard input from `stdin_path` ("" : /dev/null) and its
// output into files; returns the exit status (128 + signal when killed, -1 when it cannot run).
int RunProgram(const std::vector<std::string>& argv, const std::string& stdin_path,
               const std::string& out_path, const std::string& err_path);

// "" when the programs a private MyRocks server needs (mariadbd, mariadb, mariadb-install-db,
// ha_rocksdb.so) were found when the build was configured; else what to install.
std::string MissingMyRocksPrograms();

class MariaDbServer {
 public:
  // `config_lines`: the [mariadbd] section's lines.
  MariaDbServer(std::string dir, std::string config_lines);
  ~MariaDbServer();  // stops a server still running (SIGTERM, then SIGKILL) and reaps it
  MariaDbServer(const MariaDbServer&) = delete;
  MariaDbServer& operator=(const MariaDbServer&) = delete;

  // Initialises the data directory (unless it holds one already: a restart) and starts the
  // server; true once it takes connections.
  bool Start();
  // Runs SQL statements through the client; `out` is its batch output (tab-separated rows).
  bool Sql(const std::string& statements, std::string& out);
  // Starts the client on `statements` without waiting: its output goes to `out_path`. Returns
  // its process id (-1 when it cannot start); WaitClient reaps it and returns its exit status.
  pid_t StartClient(const std::string& statements, const std::string& out_path);
  static int WaitClient(pid_t client);
  // SHUTDOWN through the client, then waits for the process to end.
  bool Stop();
  // SIGKILL, as a crash would end it (no shutdown of any kind), and reaps it.
  void KillNow();

  std::string data_dir() const { return dir_ + "/data"; }
  // What went wrong, with the server's error log's end.
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string what);
  bool Install();
  bool Launch();
  bool WaitReady(std::size_t log_from);
  void Kill();

  std::string dir_;
  std::string config_lines_;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace bloomcodec::testing
