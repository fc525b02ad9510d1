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
  KillLoop loop("goleveldb", db, 2929, std::chrono::milliseconds(60),
                std::chrono::milliseconds(500));
  loop.run = [&](std::uint32_t seed, std::chrono::microseconds delay, int& exit_code) {
    return KillProgramAfter({GOLEVELDB_ORACLE, "churn", db, std::to_string(seed)}, delay,
                            exit_code);
  };
  loop.reopen = [&](const std::string& round, const RoundFigures& figures) {
    // Every table the writer finished is goleveldb's, as its LOG says.
    for (const auto& [path, writer] : figures.live_writers) {
      if (!writer.empty()) {
        EXPECT_EQ(writer, "goleveldb") << round << ": " << path;
      }
    }
    std::string said;
    return RunOracle({"reopen", db}, said) == 0
               ? std::string()
               : "goleveldb cannot open the directory as left: " + said;
  };
  RunKillLoop(loop);
}

}  // namespace
}  // namespace bloomcodec::crash_test
