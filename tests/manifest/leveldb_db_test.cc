// Databases written by the original LevelDB 1.23 (Debian's libleveldb) with small write buffers
// and tables so that several levels exist: verify must list the live tables at the levels
// LevelDB's own view ("leveldb.sstables") gives, report the database healthy with the per-level
// fp rate, and turn a missing table, an obsolete copy, a broken CURRENT, damaged MANIFEST
// records and swapped tables into the findings of docs/cli.md. inspect lists the same levels.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli_runner.h"
#include "manifest/db_checks.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest_test {
namespace {

std::string Key(std::uint32_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08u", i);
  return buf;
}

// LevelDB's own view: "--- level N ---" lines, then " NUMBER:SIZE[smallest .. largest]".
Levels ParseSstables(const std::string& text) {
  Levels out;
  std::istringstream in(text);
  std::string line;
  int level = -1;
  while (std::getline(in, line)) {
    if (line.starts_with("--- level ")) {
      level = std::stoi(line.substr(10));
    } else if (line.size() > 1 && line[0] == ' ') {
      out[{"default", std::stoull(line.substr(1, line.find(':') - 1))}] = level;
    }
  }
  return out;
}

// Writes a database in phases (whole-range and partial compactions) so that tables sit at
// several levels; returns LevelDB's view once no compaction runs any more.
Levels WriteDatabase(const std::string& dir, std::uint32_t seed) {
  ::leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;
  options.max_file_size = 32 << 10;
  options.block_size = 1024;
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  options.filter_policy = policy.get();
  ::leveldb::DB* raw = nullptr;
  EXPECT_TRUE(::leveldb::DB::Open(options, dir, &raw).ok());
  std::unique_ptr<::leveldb::DB> db(raw);
  std::mt19937 rng(seed);
  auto put_range = [&](std::uint32_t from, std::uint32_t to, std::uint32_t step) {
    for (std::uint32_t i = from; i < to; i += step) {
      std::string value(40 + rng() % 60, static_cast<char>('a' + rng() % 26));
      EXPECT_TRUE(db->Put(::leveldb::WriteOptions(), Key(i), value).ok());
    }
  };
  put_range(0, 12000, 1);
  db->CompactRange(nullptr, nullptr);
  put_range(3000, 6000, 2);
  const std::string a = Key(3000), b = Key(4000);
  const ::leveldb::Slice begin(a), end(b);
  db->CompactRange(&begin, &end);
  put_range(8000, 9000, 3);
  // Wait until the view stands still: fewer than 4 level-0 tables (LevelDB's compaction
  // trigger; the levels above hold far less than their 10 MB limit) and no change for a while.
  // The last writes fill less than one write buffer, so no flush is pending either.
  std::string last, now, level0;
  for (int stable = 0, i = 0; stable < 10 && i < 1500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(db->GetProperty("leveldb.sstables", &now));
    EXPECT_TRUE(db->GetProperty("leveldb.num-files-at-level0", &level0));
    stable = now == last && std::stoi(level0) < 4 ? stable + 1 : 0;
    last = now;
  }
  return ParseSstables(last);
}

class LevelDbDatabase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("manifest-leveldb");
    want_ = new Levels(WriteDatabase(dir_->path() + "/db", 7));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete want_;
  }
  // A copy of the database to damage.
  std::string Copy(const TempDir& into) {
    const std::string to = into.path() + "/db";
    fs::copy(dir_->path() + "/db", to, fs::copy_options::recursive);
    return to;
  }
  static TempDir* dir_;
  static Levels* want_;
};
TempDir* LevelDbDatabase::dir_ = nullptr;
Levels* LevelDbDatabase::want_ = nullptr;

TEST_F(LevelDbDatabase, LiveTablesAndLevelsAsLevelDbSeesThem) {
  const std::string db = dir_->path() + "/db";
  std::set<int> levels;
  for (const auto& [k, level] : *want_) levels.insert(level);
  ASSERT_GE(levels.size(), 2u) << "the database should have tables at several levels";
  ASSERT_GE(want_->size(), 10u);
  const VerifyReport report = Verify(db);
  EXPECT_EQ(LevelsOf(report), *want_);
  EXPECT_EQ(report.summary.errors, 0u);
  EXPECT_EQ(report.summary.warnings, 0u);
  EXPECT_EQ(report.files.size(), want_->size());
  ASSERT_EQ(report.summary.groups.size(), 1u);
  const GroupSummary& g = report.summary.groups[0];
  EXPECT_EQ(g.name, db);
  EXPECT_EQ(g.manifest, CurrentManifest(db));
  EXPECT_EQ(g.levels.size(), levels.size());
  EXPECT_EQ(g.tables, want_->size());
  EXPECT_NEAR(g.combined_fp_rate, ExpectedLevelRate(report, db), 1e-12);
  // The summary lines, for the test log.
  const std::string text = VerifyReportText(report);
  std::printf("%s", text.substr(text.find("summary:")).c_str());
  std::uint64_t keys = 0;
  for (const FileReport& f : report.files) keys += f.keys_checked;
  EXPECT_GE(keys, 12000u);
  // The document says the same.
  const Document json = VerifyReportJson(report);
  EXPECT_EQ(json["summary"]["groups"][0]["levels"].size(), levels.size());
  EXPECT_TRUE(json["files"][0].contains("level"));
}

TEST_F(LevelDbDatabase, InspectListsTheLevels) {
  const std::string db = dir_->path() + "/db";
  Result<Document> doc = InspectDirectory(db);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["family"], "leveldb");
  EXPECT_EQ((*doc)["comparator"], "leveldb.BytewiseComparator");
  Levels seen;
  for (const auto& level : (*doc)["column_families"][0]["levels"]) {
    for (const auto& t : level["tables"]) {
      seen[{"default", t["number"].get<std::uint64_t>()}] = level["level"].get<int>();
      EXPECT_EQ(t["size"].get<std::uint64_t>(),
                fs::file_size(db + "/" + t["file"].get<std::string>()));
    }
  }
  EXPECT_EQ(seen, *want_);
  EXPECT_TRUE((*doc)["obsolete"].empty());
}

// The command line: levels in verify's text and JSON, inspect of the directory, exit statuses.
TEST_F(LevelDbDatabase, CommandLineShowsTheLevels) {
  TempDir t("manifest-leveldb-cli");
  const std::string db = Copy(t);
  testing::CliRun r = testing::RunCli({"verify", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Document doc = Document::parse(r.out);
  ASSERT_EQ(doc["files"].size(), want_->size());
  for (const Document& f : doc["files"]) {
    EXPECT_EQ(want_->at({"default", NumberOf(f["path"].get<std::string>())}),
              f["level"].get<int>());
    EXPECT_EQ(f["column_family"], "default");
    EXPECT_EQ(f["manifest"], CurrentManifest(db));
  }
  EXPECT_EQ(doc["summary"]["groups"][0]["manifest"], CurrentManifest(db));
  EXPECT_FALSE(doc["summary"]["groups"][0]["levels"].empty());
  testing::CliRun text = testing::RunCli({"verify", db});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("]  level " + std::to_string(want_->begin()->second)), std::string::npos);
  EXPECT_NE(text.out.find("one table per level above"), std::string::npos);
  testing::CliRun inspect = testing::RunCli({"inspect", db, "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const Document idoc = Document::parse(inspect.out);
  ASSERT_EQ(idoc["files"].size(), 1u);
  EXPECT_EQ(idoc["files"][0]["file"], db);
  EXPECT_EQ(idoc["files"][0]["family"], "leveldb");
  EXPECT_TRUE(idoc["files"][0]["from_manifest"].get<bool>());
  testing::CliRun itext = testing::RunCli({"inspect", db});
  EXPECT_EQ(itext.exit_code, 0);
  EXPECT_NE(itext.out.find("column family default:"), std::string::npos);
  // A missing table: exit 1 and the finding in the text.
  fs::remove(db + "/" + manifest::TableFileName(want_->begin()->first.second, "ldb"));
  testing::CliRun missing = testing::RunCli({"verify", db});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("error missing-table"), std::string::npos);
  // A directory that is no database: inspect refuses it (exit 2).
  fs::create_directories(t.path() + "/empty");
  EXPECT_EQ(testing::RunCli({"inspect", t.path() + "/empty"}).exit_code, 2);
}

TEST_F(LevelDbDatabase, MissingTableIsAnError) {
  TempDir t("manifest-leveldb-missing");
  const std::string db = Copy(t);
  const std::uint64_t number = want_->begin()->first.second;
  const std::string path = db + "/" + manifest::TableFileName(number, "ldb");
  ASSERT_TRUE(fs::remove(path));
  const VerifyReport report = Verify(db);
  const FileReport* f = ReportOf(report, path);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasFinding(*f, finding_kind::kMissingTable, Severity::kError));
  EXPECT_EQ(f->level, want_->begin()->second);
  EXPECT_EQ(report.summary.errors, 1u);
  EXPECT_EQ(report.summary.groups.at(0).damaged, 1u);
}

TEST_F(LevelDbDatabase, ObsoleteCopyIsInfoAndOutOfTheRate) {
  TempDir t("manifest-leveldb-obsolete");
  const std::string db = Copy(t);
  const VerifyReport before = Verify(db);
  const std::uint64_t number = want_->begin()->first.second;
  const std::string copy = db + "/" + manifest::TableFileName(900000, "ldb");
  fs::copy_file(db + "/" + manifest::TableFileName(number, "ldb"), copy);
  const VerifyReport report = Verify(db);
  const FileReport* f = ReportOf(report, copy);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasFinding(*f, finding_kind::kObsolete, Severity::kInfo));
  EXPECT_EQ(f->group_role, GroupRole::kObsolete);
  EXPECT_EQ(std::string(f->status_name()), "ok");
  EXPECT_EQ(report.summary.errors, 0u);
  ASSERT_EQ(report.summary.groups.size(), 2u);
  const GroupSummary& live = report.summary.groups[0];
  EXPECT_EQ(live.role, GroupRole::kLive);
  EXPECT_EQ(live.tables, want_->size());
  EXPECT_DOUBLE_EQ(live.combined_fp_rate, before.summary.groups.at(0).combined_fp_rate);
  EXPECT_EQ(report.summary.groups[1].role, GroupRole::kObsolete);
}

// What a writer killed mid-flush or mid-compaction leaves: a table no version references, cut
// short or empty. Its findings are info (LevelDB never reads it and deletes it at its next open);
// the same bytes listed as live stay an error (the listed-damage cases of the damaged suites).
TEST_F(LevelDbDatabase, AHalfWrittenLeftoverIsInfoNotDamage) {
  TempDir t("manifest-leveldb-leftover");
  const std::string db = Copy(t);
  const std::uint64_t number = want_->begin()->first.second;
  const std::string bytes = ReadFile(db + "/" + manifest::TableFileName(number, "ldb"));
  const std::string cut = db + "/" + manifest::TableFileName(900001, "ldb");
  const std::string empty = db + "/" + manifest::TableFileName(900002, "ldb");
  WriteFile(cut, bytes.substr(0, bytes.size() / 2));
  WriteFile(empty, "");
  const VerifyReport report = Verify(db);
  for (const std::string& path : {cut, empty}) {
    const FileReport* f = ReportOf(report, path);
    ASSERT_NE(f, nullptr) << path;
    EXPECT_EQ(f->group_role, GroupRole::kObsolete);
    EXPECT_TRUE(HasFinding(*f, finding_kind::kObsolete, Severity::kInfo));
    EXPECT_GE(f->findings.size(), 2u) << path;  // what was found is still said
    for (const Finding& x : f->findings) {
      EXPECT_EQ(x.severity, Severity::kInfo) << path << ": " << x.message;
      if (x.kind != finding_kind::kObsolete) {
        EXPECT_TRUE(x.message.starts_with("in a table no live version references")) << x.message;
      }
    }
  }
  EXPECT_EQ(report.summary.errors, 0u);
  EXPECT_EQ(report.summary.warnings, 0u);
  // The same cut bytes in place of a live table: the MANIFEST says it is one, so it is damage.
  WriteFile(db + "/" + manifest::TableFileName(number, "ldb"), bytes.substr(0, bytes.size() / 2));
  const VerifyReport damaged = Verify(db);
  EXPECT_EQ(damaged.summary.errors, 1u);
}

TEST_F(LevelDbDatabase, BrokenCurrentFallsBackToTheListing) {
  TempDir t("manifest-leveldb-current");
  const std::string db = Copy(t);
  WriteFile(db + "/CURRENT", "MANIFEST-999999\n");
  const VerifyReport report = Verify(db);
  const FileReport* current = ReportOf(report, db + "/CURRENT");
  ASSERT_NE(current, nullptr);
  EXPECT_TRUE(HasFinding(*current, finding_kind::kManifest, Severity::kError));
  bool fallback = false;
  for (const Finding& f : current->findings) {
    fallback |= f.message.find("falls back to the directory listing") != std::string::npos;
  }
  EXPECT_TRUE(fallback);
  EXPECT_TRUE(current->group.empty());
  // Every table still verified, without levels.
  EXPECT_EQ(report.files.size(), want_->size() + 1);
  EXPECT_TRUE(LevelsOf(report).empty());
  ASSERT_EQ(report.summary.groups.size(), 1u);
  EXPECT_TRUE(report.summary.groups[0].levels.empty());
  EXPECT_EQ(report.summary.groups[0].tables, want_->size());
  // A CURRENT without its newline is damage too.
  WriteFile(db + "/CURRENT", "MANIFEST-000001");
  EXPECT_TRUE(HasFinding(*ReportOf(Verify(db), db + "/CURRENT"), finding_kind::kManifest,
                         Severity::kError));
}

TEST_F(LevelDbDatabase, DamagedManifestRecordsAreFindingsWithOffsets) {
  TempDir t("manifest-leveldb-damaged");
  const std::string db = Copy(t);
  const std::string manifest_path = CurrentManifest(db);
  const std::string good = ReadFile(manifest_path);
  ASSERT_GT(good.size(), 40u);
  // A flipped payload byte in the first record: a checksum error at byte 0, and the fallback.
  std::string bad = good;
  bad[12] ^= 0x01;
  WriteFile(manifest_path, bad);
  VerifyReport report = Verify(db);
  const FileReport* m = ReportOf(report, manifest_path);
  ASSERT_NE(m, nullptr);
  ASSERT_FALSE(m->findings.empty());
  EXPECT_EQ(m->findings[0].severity, Severity::kError);
  EXPECT_EQ(m->findings[0].offset, 0u);
  EXPECT_NE(m->findings[0].message.find("checksum"), std::string::npos);
  EXPECT_EQ(report.files.size(), want_->size() + 1);
  // Cut inside the last record: a warning, the earlier edits still give the levels.
  WriteFile(manifest_path, good.substr(0, good.size() - 3));
  report = Verify(db);
  m = ReportOf(report, manifest_path);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->worst(), Severity::kWarning);
  ASSERT_TRUE(m->findings.at(0).offset.has_value());
  EXPECT_LT(*m->findings[0].offset, good.size());
  EXPECT_FALSE(LevelsOf(report).empty());
  // Every prefix and a byte flipped at every position of the first 300: findings, never a
  // crash or a failure of the run.
  for (std::size_t cut = 0; cut < good.size(); cut += std::max<std::size_t>(1, good.size() / 97)) {
    const manifest::Manifest mm =
        manifest::ReadManifest(ByteSpan(reinterpret_cast<const std::uint8_t*>(good.data()), cut),
                               manifest::Flavor::kLevelDb, manifest_path);
    for (const Finding& f : mm.findings) EXPECT_LE(f.offset.value_or(0), cut);
  }
  for (std::size_t i = 0; i < std::min<std::size_t>(300, good.size()); ++i) {
    std::string flipped = good;
    flipped[i] ^= 0x20;
    const manifest::Manifest mm = manifest::ReadManifest(
        ByteSpan(reinterpret_cast<const std::uint8_t*>(flipped.data()), flipped.size()),
        manifest::Flavor::kLevelDb, manifest_path);
    EXPECT_FALSE(mm.findings.empty()) << "flipped byte " << i;
  }
}

TEST_F(LevelDbDatabase, SwappedTablesDisagreeWithTheManifest) {
  TempDir t("manifest-leveldb-swap");
  const std::string db = Copy(t);
  // Two tables of one level exchanged: each holds keys the MANIFEST does not give it.
  std::vector<std::uint64_t> same_level;
  const int level = want_->rbegin()->second;
  for (const auto& [k, l] : *want_) {
    if (l == level) same_level.push_back(k.second);
  }
  ASSERT_GE(same_level.size(), 2u);
  const std::string a = db + "/" + manifest::TableFileName(same_level[0], "ldb");
  const std::string b = db + "/" + manifest::TableFileName(same_level[1], "ldb");
  fs::rename(a, db + "/tmp");
  fs::rename(b, a);
  fs::rename(db + "/tmp", b);
  const VerifyReport report = Verify(db);
  EXPECT_TRUE(HasFinding(*ReportOf(report, a), finding_kind::kKeyRange, Severity::kError));
  EXPECT_TRUE(HasFinding(*ReportOf(report, b), finding_kind::kKeyRange, Severity::kError));
  EXPECT_EQ(report.summary.errors, 2u);
}

TEST_F(LevelDbDatabase, AFolderOfTablesUnderAnyNamesIsASet) {
  TempDir t("manifest-leveldb-set");
  const std::string set = t.path() + "/exports";
  fs::create_directories(set);
  int i = 0;
  for (const auto& [k, level] : *want_) {
    const std::string from = dir_->path() + "/db/" + manifest::TableFileName(k.second, "ldb");
    const std::string name = i % 3 == 0   ? "backup-" + std::to_string(i) + ".table"
                             : i % 3 == 1 ? std::to_string(i) + ".sst"
                                          : "t" + std::to_string(i);
    fs::copy_file(from, set + "/" + name);
    ++i;
  }
  WriteFile(set + "/README.txt", "not a table\n");
  const VerifyReport report = Verify(set);
  EXPECT_EQ(report.files.size(), want_->size());
  EXPECT_EQ(report.summary.errors, 0u);
  ASSERT_EQ(report.summary.groups.size(), 1u);
  EXPECT_EQ(report.summary.groups[0].tables, want_->size());
  EXPECT_TRUE(report.summary.groups[0].levels.empty());
  for (const FileReport& f : report.files) EXPECT_EQ(f.format, "leveldb-table");
  // Written out for the fuzzer's seeds when asked (fixtures/manifest, see fixtures/README.md).
  if (const char* out = std::getenv("BLOOMCODEC_WRITE_MANIFEST_SEED")) {
    fs::copy_file(CurrentManifest(dir_->path() + "/db"), out, fs::copy_options::overwrite_existing);
  }
}

}  // namespace
}  // namespace bloomcodec::manifest_test
