// goleveldb (Debian's golang-github-syndtr-goleveldb-dev, through tests/goleveldb's oracle)
// killed with SIGKILL while it writes and compacts (`oracle churn`): verify of the directory as
// left must report no error, and goleveldb must open it again as the application opens it
// (`oracle reopen`: churn's options with goleveldb's default strict flags, under which its
// MANIFEST is read without StrictManifest) and read every key. The keys here are text, so no
// table tells goleveldb's hash from LevelDB 1.17's by its keys: the database's LOG decides
// (database_writer.h), and no table may be left "leveldb-1.17-or-goleveldb".
// BLOOMCODEC_KILL_ROUNDS raises the number of kills.
#include "crash/kill_harness.h"

namespace bloomcodec::crash_test {
namespace {

int RunOracle(const std::vector<std::string>& args, std::string& out) {
  std::vector<std::string> argv = {GOLEVELDB_ORACLE};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, out);
}

TEST(GoLevelDbKilled, VerifyFindsNoErrorAndGoLevelDbReopens) {
  TempDir dir("goleveldb");
  const std::string db = dir.path() + "/db";
  std::string out;
  ASSERT_EQ(RunOracle({"reopen", db}, out), 0) << out;  // creates it
  const std::uint32_t seed = KillSeed(2929);
  std::mt19937 rng(seed);
  const int rounds = KillRounds(3);
  int killed = 0;
  RoundFigures sum;
  for (int round = 0; round < rounds; ++round) {
    const std::string name = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    int exit_code = 0;
    const auto delay = KillDelay(rng, 60, 500);
    if (KillProgramAfter({GOLEVELDB_ORACLE, "churn", db, std::to_string(seed * 1000 + round)},
                         delay, exit_code)) {
      ++killed;
    } else {
      ADD_FAILURE() << name << ": the writer ended before the kill (status " << exit_code << ")";
    }
    const RoundFigures figures = ExpectNoError(db, name);
    Add(sum, figures);
    // Every table the writer finished is goleveldb's, as its LOG says.
    for (const auto& [path, writer] : figures.live_writers) {
      if (!writer.empty()) {
        EXPECT_EQ(writer, "goleveldb") << name << ": " << path;
      }
    }
    out.clear();
    ASSERT_EQ(RunOracle({"reopen", db}, out), 0)
        << name << ": goleveldb cannot open the directory as left: " << out << "\n"
        << Listing(db);
  }
  EXPECT_EQ(killed, rounds);
  PrintFigures("goleveldb", rounds, killed, sum);
}

}  // namespace
}  // namespace bloomcodec::crash_test
