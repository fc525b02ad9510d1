// A private MariaDB server for one test: its data directory, socket, configuration and logs in a
// directory the caller owns, no network, no system configuration (--no-defaults style: the
// server reads only the file given). Stopped when the object goes, whatever happened.
//
//   MariaDbServer server(dir.path(), "plugin-load-add=ha_rocksdb\n");
//   ASSERT_TRUE(server.Start()) << server.error();
//   std::string out;
//   ASSERT_TRUE(server.Sql("SELECT 1", out)) << server.error();
//   ASSERT_TRUE(server.Stop()) << server.error();  // a clean SHUTDOWN, the process reaped
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace bloomcodec::testing {

// Runs `argv` (argv[0] a path) with standard input from `stdin_path` ("" : /dev/null) and its
// output into files; returns the exit status (128 + signal when killed, -1 when it cannot run).
int RunProgram(const std::vector<std::string>& argv, const std::string& stdin_path,
               const std::string& out_path, const std::string& err_path);

class MariaDbServer {
 public:
  // `config_lines`: the [mariadbd] section's lines.
  MariaDbServer(std::string dir, std::string config_lines);
  ~MariaDbServer();  // stops a server still running (SIGTERM, then SIGKILL) and reaps it
  MariaDbServer(const MariaDbServer&) = delete;
  MariaDbServer& operator=(const MariaDbServer&) = delete;

  // Initialises the data directory and starts the server; true once it takes connections.
  bool Start();
  // Runs SQL statements through the client; `out` is its batch output (tab-separated rows).
  bool Sql(const std::string& statements, std::string& out);
  // SHUTDOWN through the client, then waits for the process to end.
  bool Stop();

  std::string data_dir() const { return dir_ + "/data"; }
  // What went wrong, with the server's error log's end.
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string what);
  bool WaitReady();
  void Kill();

  std::string dir_;
  std::string config_lines_;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace bloomcodec::testing
