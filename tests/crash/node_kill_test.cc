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
  // Node.js and the binding take about half a second to start writing.
  KillLoop loop(engine, db, fixed_seed, std::chrono::milliseconds(400),
                std::chrono::milliseconds(1000));
  loop.ci_rounds = 2;
  loop.run = [&](std::uint32_t seed, std::chrono::microseconds delay, int& exit_code) {
    return KillProgramAfter({BLOOMCODEC_NODE, BLOOMCODEC_CHURN_SCRIPT, BLOOMCODEC_NPM_MODULES,
                             engine, "churn", db, std::to_string(seed)},
                            delay, exit_code);
  };
  loop.reopen = [&](const std::string&, const RoundFigures&) {
    std::string said;
    const int rc = RunNode({engine, "reopen", db}, said);
    if (rc != 0) return "the writer cannot open the directory as left: " + said;
    return said.starts_with("ok ") ? std::string() : "the writer's reopen said: " + said;
  };
  RunKillLoop(loop);
}

TEST(NodeWritersKilled, RocksDb97) { RunKills("rocksdb9", 2997); }
TEST(NodeWritersKilled, RocksDb1051) { RunKills("rocksdb10", 2910); }
TEST(NodeWritersKilled, MojangLevelDb) { RunKills("mojang", 2913); }

}  // namespace
}  // namespace bloomcodec::crash_test
