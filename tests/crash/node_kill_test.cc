// The Node.js writers killed with SIGKILL while they write and compact (churn.js): RocksDB 9.7
// (@nxtedition/rocksdb), RocksDB 10.5.1 (rocksdb-native) and Mojang's LevelDB (leveldb-zlib),
// installed by scripts/install-deps into build/npm. verify of the directory as left must report
// no error, and the writer must open it again and read every key. Node.js starts slowly, so each
// writer gets two kills in CI (BLOOMCODEC_KILL_ROUNDS raises them).
#include "crash/kill_harness.h"

namespace bloomcodec::crash_test {
namespace {

int RunNode(const std::vector<std::string>& args, std::string& out) {
  std::vector<std::string> argv = {BLOOMCODEC_NODE, BLOOMCODEC_CHURN_SCRIPT,
                                   BLOOMCODEC_NPM_MODULES};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, out);
}

void RunKills(const std::string& engine, std::uint32_t fixed_seed) {
  ASSERT_NE(std::string(BLOOMCODEC_NODE), "") << "Node.js is missing: run scripts/install-deps";
  TempDir dir("node-" + engine);
  const std::string db = dir.path() + "/db";
  std::string out;
  ASSERT_EQ(RunNode({engine, "reopen", db}, out), 0) << out;  // creates it
  const std::uint32_t seed = KillSeed(fixed_seed);
  std::mt19937 rng(seed);
  const int rounds = KillRounds(2);
  int killed = 0;
  RoundFigures sum;
  for (int round = 0; round < rounds; ++round) {
    const std::string name =
        engine + " seed " + std::to_string(seed) + " round " + std::to_string(round);
    int exit_code = 0;
    // Node.js and the binding take about half a second to start writing.
    const auto delay = KillDelay(rng, 400, 1000);
    if (KillProgramAfter({BLOOMCODEC_NODE, BLOOMCODEC_CHURN_SCRIPT, BLOOMCODEC_NPM_MODULES, engine,
                          "churn", db, std::to_string(seed * 1000 + round)},
                         delay, exit_code)) {
      ++killed;
    } else {
      ADD_FAILURE() << name << ": the writer ended before the kill (status " << exit_code << ")";
    }
    Add(sum, ExpectNoError(db, name));
    out.clear();
    ASSERT_EQ(RunNode({engine, "reopen", db}, out), 0)
        << name << ": the writer cannot open the directory as left: " << out << "\n"
        << Listing(db);
    EXPECT_TRUE(out.starts_with("ok ")) << out;
  }
  EXPECT_EQ(killed, rounds);
  PrintFigures(engine, rounds, killed, sum);
}

TEST(NodeWritersKilled, RocksDb97) { RunKills("rocksdb9", 2997); }
TEST(NodeWritersKilled, RocksDb1051) { RunKills("rocksdb10", 2910); }
TEST(NodeWritersKilled, MojangLevelDb) { RunKills("mojang", 2913); }

}  // namespace
}  // namespace bloomcodec::crash_test
