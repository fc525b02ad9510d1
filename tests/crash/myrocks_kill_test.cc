// Kill test of MariaDB's MyRocks (issue 29, §4), the one writer here that is a server: a private
// mariadbd (tests/myrocks/mariadb_server.h) takes batches of inserts into a table with a
// reverse-ordered secondary index, memtable flushes and manual compactions from a client, and is
// killed with SIGKILL at a moment drawn from a fixed seed. Then:
//   - verify of its #rocksdb directory as the kill left it reports no error (a crash's leftovers
//     are info: docs/cli.md, "crash leftovers");
//   - mariadbd restarts on the same data directory, and every batch the client saw committed is
//     there whole (with rocksdb_flush_log_at_trx_commit's default, a commit is on disk when it is
//     acknowledged), the one in flight whole or not at all;
//   - after a clean shutdown, verify of #rocksdb reports no finding above info.
// Inserts take some 20 ms a batch and a manual compaction about a second, so even rounds kill
// in the first 150 ms and odd ones anywhere in 3.5 s. Two kills in CI (the server's first start
// costs some 6 s, mostly waiting; the test some 10 s of wall time and 1 s of CPU);
// BLOOMCODEC_KILL_ROUNDS=N and BLOOMCODEC_KILL_SEED for a longer local soak.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bloomcodec/verify.h"
#include "crash/kill_harness.h"
#include "myrocks/mariadb_server.h"

namespace bloomcodec::crash_test {
namespace {

using testing::MariaDbServer;
using testing::MissingMyRocksPrograms;

// MariaDB's recommended MyRocks setup (a Bloom filter, a capped prefix extractor, whole keys off)
// and a reverse-ordered family with whole keys on, so both comparators' tables are killed.
constexpr const char* kConfig =
    "plugin-load-add=ha_rocksdb\n"
    "rocksdb_default_cf_options=block_based_table_factory={filter_policy=bloomfilter:10:false;"
    "whole_key_filtering=0};prefix_extractor=capped:8\n"
    "rocksdb_override_cf_options="
    "rev:cf_kill={block_based_table_factory={filter_policy=bloomfilter:10:false;"
    "whole_key_filtering=1};prefix_extractor=capped:12}\n";

constexpr int kBatchRows = 1000;
constexpr int kBatches = 60;  // more than a kill lets through: the client is always cut short

// The client's work for one round: batches of rows (ids from `base`), each followed by its
// number once committed; every few batches a flush, and now and then a compaction of both
// families (a kill can land inside either).
std::string Workload(std::uint64_t base) {
  std::ostringstream sql;
  sql << "USE k;\n";
  for (int b = 0; b < kBatches; ++b) {
    const std::uint64_t from = base + static_cast<std::uint64_t>(b) * kBatchRows;
    sql << "INSERT INTO t SELECT seq, CONCAT('v', seq), seq % 997 FROM seq_" << from << "_to_"
        << from + kBatchRows - 1 << ";\nSELECT " << b << ";\n";
    if (b % 3 == 2) sql << "SET GLOBAL rocksdb_force_flush_memtable_now=1;\n";
    if (b % 7 == 6) {
      sql << "SET GLOBAL rocksdb_compact_cf='default';\n"
          << "SET GLOBAL rocksdb_compact_cf='rev:cf_kill';\n";
    }
  }
  return sql.str();
}

// The batches the client printed as committed: 0 .. n-1, in order.
int CommittedBatches(const std::string& out_path) {
  std::ifstream in(out_path);
  int n = 0;
  for (int b; in >> b;) {
    EXPECT_EQ(b, n) << "the client's output is the batch numbers in order";
    n = b + 1;
  }
  return n;
}

std::uint64_t Count(MariaDbServer& server, const std::string& where) {
  std::string out;
  EXPECT_TRUE(server.Sql("SELECT COUNT(*) FROM k.t WHERE " + where + ";", out)) << server.error();
  return std::strtoull(out.c_str(), nullptr, 10);
}

// Verify of the directory: the worst severity seen, every finding above info in `listing`.
Severity VerifyRocksDb(const std::string& dir, std::string& listing) {
  VerifyOptions options;
  options.threads = 2;
  Result<VerifyReport> r = VerifyPaths(std::vector<std::string>{dir}, options);
  if (!r.ok()) {
    listing += "verify refused the directory: " + r.status().ToString() + "\n";
    return Severity::kError;
  }
  Severity worst = Severity::kInfo;
  for (const FileReport& f : r->files) {
    for (const Finding& x : f.findings) {
      if (x.severity == Severity::kInfo) continue;
      if (x.severity == Severity::kError) worst = Severity::kError;
      if (x.severity == Severity::kWarning && worst != Severity::kError) worst = x.severity;
      listing += "  " + f.path + ": " + std::string(SeverityName(x.severity)) + " " + x.kind +
                 ": " + x.message + "\n";
    }
  }
  return worst;
}

TEST(MyRocksKill, ServerKilledInWritesAndCompactionsReopensAndVerifies) {
  ASSERT_EQ(MissingMyRocksPrograms(), "");
  TempDir dir("myrocks");
  const std::string rocksdb_dir = dir.path() + "/data/#rocksdb";
  MariaDbServer server(dir.path(), kConfig);  // stopped (or killed) at the end in any case
  ASSERT_TRUE(server.Start()) << server.error();
  std::string out;
  ASSERT_TRUE(
      server.Sql("CREATE DATABASE k; CREATE TABLE k.t (id BIGINT PRIMARY KEY, "
                 "v VARCHAR(40), g INT, KEY kg (g) COMMENT 'rev:cf_kill') ENGINE=ROCKSDB;",
                 out))
      << server.error();

  const int rounds = KillRounds(2);
  std::mt19937 rng(KillSeed(29));
  int killed_mid_run = 0, warnings_as_left = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::string name = "round " + std::to_string(round);
    const std::uint64_t base = 1 + static_cast<std::uint64_t>(round) * kBatches * kBatchRows;
    const std::string client_out = dir.path() + "/client-" + std::to_string(round) + ".out";
    const pid_t client = server.StartClient(Workload(base), client_out);
    ASSERT_GE(client, 0) << name;
    // Even rounds kill among the first batches' inserts and flushes, odd ones anywhere (mostly
    // in a compaction, which takes most of the client's time).
    std::this_thread::sleep_for(round % 2 == 0 ? KillDelay(rng, 20, 150)
                                               : KillDelay(rng, 50, 3500));
    server.KillNow();
    // The client lost its server (exit 1) or, rarely, finished first (0): never more.
    const int client_status = MariaDbServer::WaitClient(client);
    EXPECT_TRUE(client_status == 0 || client_status == 1) << name << ": " << client_status;
    killed_mid_run += client_status == 1 ? 1 : 0;
    const int committed = CommittedBatches(client_out);

    std::string as_left;
    EXPECT_NE(VerifyRocksDb(rocksdb_dir, as_left), Severity::kError)
        << name << ", the directory as the kill left it:\n"
        << as_left << Listing(rocksdb_dir);
    warnings_as_left += as_left.empty() ? 0 : 1;

    ASSERT_TRUE(server.Start()) << name << ": mariadbd does not restart\n" << server.error();
    const std::uint64_t edge = base + static_cast<std::uint64_t>(committed) * kBatchRows;
    const std::string round_ids = "id >= " + std::to_string(base) + " AND id < ";
    EXPECT_EQ(Count(server, round_ids + std::to_string(edge)),
              static_cast<std::uint64_t>(committed) * kBatchRows)
        << name << ": batches acknowledged before the kill";
    const std::uint64_t in_flight =
        Count(server, "id >= " + std::to_string(edge) + " AND id < " +
                          std::to_string(base + std::uint64_t{kBatches} * kBatchRows));
    EXPECT_TRUE(in_flight == 0 || in_flight == kBatchRows)
        << name << ": the batch in flight, whole or not at all: " << in_flight << " rows";
    std::printf("[myrocks-kill] %s: %d batches acknowledged, in flight %s, client exit %d\n",
                name.c_str(), committed, in_flight == 0 ? "lost" : "kept", client_status);
  }
  ASSERT_TRUE(server.Stop()) << server.error();
  std::string after;
  EXPECT_EQ(VerifyRocksDb(rocksdb_dir, after), Severity::kInfo)
      << "after a clean shutdown, no finding above info:\n"
      << after << Listing(rocksdb_dir);
  std::printf("[myrocks-kill] %d rounds, %d killed mid-run, %d left warnings as killed\n", rounds,
              killed_mid_run, warnings_as_left);
}

}  // namespace
}  // namespace bloomcodec::crash_test
