// The repair transaction of one sstable (formats/cassandra/repair/repair.h) on sstables written
// by tests/repair/cassandra_sstables.cc: what it replaces, what it keeps byte for byte, what it
// refuses, and what it leaves behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/repair.h"
#include "cassandra/rebuild_tap.h"
#include "cassandra/repair/keys.h"
#include "cassandra/repair/repair.h"
#include "cassandra/repair/statistics.h"
#include "codec/parallel.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;
using testing::FilterState;
using testing::MadeSstable;
using testing::SstableRecipe;

RepairRequest Request(std::optional<double> fp = std::nullopt) {
  RepairRequest r;
  r.fp_chance = fp;
  r.backup = SnapshotBackup("bloomcodec-repair-20260701T120000Z");
  r.now = 1782907200;  // 2026-07-01T12:00:00Z
  return r;
}

bool HasError(const FileReport& r) {
  for (const Finding& f : r.findings) {
    if (f.severity == Severity::kError) return true;
  }
  return false;
}

std::vector<std::string> NamesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// CQLSSTableWriter's saturated 16-byte Filter.db (CASSANDRA-21423) becomes the filter
// getFilter(n, 0.01) allocates; nothing else of the sstable changes; the snapshot holds the old
// files; verify finds the sstable sound.
TEST(CassandraRepair, SaturatedCqlSstableWriterFilterRepairedEverythingElseUntouched) {
  testing::TempDir tmp;
  SstableRecipe recipe;
  recipe.keys = 500;
  const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
  const auto before = testing::FilesUnder(s.table_dir);
  ASSERT_EQ(before.at("nb-1-big-Filter.db").size(), 16u);
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kRepaired);
  // Saturated by 500 keys it could never hold (undersized: the writer's sizing, not damage), and
  // so far from what its key count at 0.01 promises.
  EXPECT_EQ(out->problems, (std::vector<std::string>{"undersized", "fp-chance"}));
  EXPECT_EQ(out->sizing.source, SizingSource::kStatistics);
  EXPECT_FALSE(out->statistics_rewritten);
  auto spec = SizeMurmur3Filter(500, 0.01);
  ASSERT_TRUE(spec.ok());
  const auto after = testing::FilesUnder(s.table_dir);
  EXPECT_EQ(after.at("nb-1-big-Filter.db").size(), static_cast<std::size_t>(spec->file_bytes()));
  EXPECT_EQ(out->hash_count, spec->hash_count);
  for (const auto& [name, bytes] : before) {
    if (name == "nb-1-big-Filter.db") continue;
    EXPECT_EQ(after.at(name), bytes) << name << " changed";
  }
  // The snapshot: every component linked (the old Filter.db among them) and the manifest.
  const std::string snap = s.table_dir + "/snapshots/bloomcodec-repair-20260701T120000Z/";
  for (const auto& [name, bytes] : before) {
    EXPECT_EQ(after.at("snapshots/bloomcodec-repair-20260701T120000Z/" + name), bytes) << name;
  }
  const ByteVector manifest = testing::ReadAll(snap + "manifest.json");
  EXPECT_EQ(std::string(manifest.begin(), manifest.end()),
            "{\"files\":[\"nb-1-big-Data.db\"],\"created_at\":\"2026-07-01T12:00:00Z\","
            "\"expires_at\":null}");
  struct stat a {
  }, b{};
  ASSERT_EQ(::stat((s.prefix + "Data.db").c_str(), &a), 0);
  ASSERT_EQ(::stat((snap + "nb-1-big-Data.db").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);  // a hard link, as nodetool snapshot makes
  // No temporary file stays; verify now finds nothing wrong.
  for (const std::string& n : NamesIn(s.table_dir)) {
    EXPECT_FALSE(n.ends_with(kRepairTemporarySuffix)) << n;
  }
  Result<SstableSet> set = FindSstableSet(s.prefix + "TOC.txt");
  ASSERT_TRUE(set.ok());
  const FileReport r = VerifySstable(set->files);
  EXPECT_FALSE(HasError(r));
  EXPECT_EQ(r.keys_checked, 500u);
  EXPECT_EQ(r.false_negative_count, 0u);
  // A second run finds the filter it wrote and changes nothing.
  Result<RepairOutcome> again = RepairSstable(s.prefix + "Filter.db", Request(), ops);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->action, RepairAction::kUnchanged);
}

TEST(CassandraRepair, FalseNegativesRepairedAndANewFpChanceRecorded) {
  testing::TempDir tmp;
  SstableRecipe recipe;
  recipe.version = "oa";
  recipe.filter = FilterState::kMissingKeys;
  const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
  const auto before = testing::FilesUnder(s.table_dir);
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Statistics.db", Request(0.001), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Only the false negatives: a filter of 500 keys at its recorded chance is within the
  // fp-chance test's band (docs/cli.md), whatever chance the repair is asked for.
  EXPECT_EQ(out->problems, (std::vector<std::string>{"false-negative"}));
  EXPECT_TRUE(out->statistics_rewritten);
  EXPECT_EQ(out->replaced,
            (std::vector<std::string>{s.prefix + "Filter.db", s.prefix + "Statistics.db"}));
  ASSERT_EQ(out->recorded_fp_chance, 0.01);
  const ByteVector stats = testing::ReadAll(s.prefix + "Statistics.db");
  EXPECT_EQ(stats, testing::StatisticsFile("oa", "big", 0.001));
  const auto after = testing::FilesUnder(s.table_dir);
  for (const auto& [name, bytes] : before) {
    if (name == "oa-1-big-Filter.db" || name == "oa-1-big-Statistics.db") continue;
    EXPECT_EQ(after.at(name), bytes) << name;
  }
  Result<SstableSet> set = FindSstableSet(s.prefix + "Data.db");
  ASSERT_TRUE(set.ok());
  const FileReport r = VerifySstable(set->files);
  EXPECT_FALSE(HasError(r));
  EXPECT_EQ(r.false_negative_count, 0u);
  // The operator's next step is the table's ALTER; the outcome says so.
  ASSERT_FALSE(out->notes.empty());
  EXPECT_NE(out->notes.back().find("bloom_filter_fp_chance"), std::string::npos);
}

// Damage anywhere but in the filter: the sstable stays exactly as it was, no snapshot is made.
TEST(CassandraRepair, RefusesAnSstableDamagedBesidesItsFilter) {
  testing::TempDir tmp;
  const MadeSstable s = testing::MakeSstable(tmp.path(), SstableRecipe{});
  ByteVector index = testing::ReadAll(s.prefix + "Index.db");
  index.resize(index.size() - 3);  // the last entry cut short
  testing::WriteAll(s.prefix + "Index.db", index);
  const auto before = testing::FilesUnder(s.table_dir);
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kDamaged);
  ASSERT_TRUE(out->damage.has_value());
  EXPECT_NE((out->damage->kind + out->damage->message).find("index"), std::string::npos)
      << out->damage->message;
  EXPECT_EQ(testing::FilesUnder(s.table_dir), before);
  // Statistics.db damaged (a CRC32 of the 4.0+ layout).
  testing::TempDir tmp2;
  const MadeSstable t = testing::MakeSstable(tmp2.path(), SstableRecipe{});
  ByteVector stats = testing::ReadAll(t.prefix + "Statistics.db");
  stats[stats.size() - 1] ^= 1;
  testing::WriteAll(t.prefix + "Statistics.db", stats);
  const auto before2 = testing::FilesUnder(t.table_dir);
  out = RepairSstable(t.prefix + "Data.db", Request(0.001), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kDamaged);
  EXPECT_EQ(testing::FilesUnder(t.table_dir), before2);
}

TEST(CassandraRepair, DryRunAndOnlyIfWrongWriteNothing) {
  testing::TempDir tmp;
  const MadeSstable s = testing::MakeSstable(tmp.path(), SstableRecipe{});
  const auto before = testing::FilesUnder(s.table_dir);
  FileOps ops;
  RepairRequest dry = Request(0.001);
  dry.dry_run = true;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", dry, ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kPlanned);
  EXPECT_TRUE(out->statistics_rewritten);
  EXPECT_GT(out->new_filter_bytes, 16u);
  EXPECT_EQ(testing::FilesUnder(s.table_dir), before);
  // A sound filter is left alone when only wrong ones are asked for.
  testing::TempDir tmp2;
  SstableRecipe sound;
  sound.filter = FilterState::kSound;
  const MadeSstable t = testing::MakeSstable(tmp2.path(), sound);
  const auto before2 = testing::FilesUnder(t.table_dir);
  RepairRequest wrong_only = Request();
  wrong_only.only_if_wrong = true;
  out = RepairSstable(t.prefix + "Data.db", wrong_only, ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kFilterSound);
  EXPECT_TRUE(out->problems.empty());
  EXPECT_EQ(testing::FilesUnder(t.table_dir), before2);
  // Rebuilt at its own chance, a sound filter is the same bytes: nothing is written either.
  out = RepairSstable(t.prefix + "Data.db", Request(), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kUnchanged);
  EXPECT_EQ(testing::FilesUnder(t.table_dir), before2);
}

TEST(CassandraRepair, RemovesLeftoversKeepsModeAndCreatesAMissingFilter) {
  testing::TempDir tmp;
  SstableRecipe recipe;
  recipe.version = "me";
  recipe.filter = FilterState::kAbsent;  // TOC.txt lists it: deleted by hand
  const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
  testing::WriteAll(s.prefix + "Filter.db" + std::string(kRepairTemporarySuffix), ByteVector(3));
  ASSERT_EQ(::chmod((s.prefix + "Data.db").c_str(), 0640), 0);
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->problems, std::vector<std::string>{"missing-filter"});
  EXPECT_EQ(out->old_filter_bytes, 0u);
  struct stat st {};
  ASSERT_EQ(::stat((s.prefix + "Filter.db").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);  // Data.db's, as no Filter.db was there
  for (const std::string& n : NamesIn(s.table_dir)) {
    EXPECT_FALSE(n.ends_with(kRepairTemporarySuffix)) << n;
  }
}

TEST(CassandraRepair, RefusesWhatMustNotBeTouched) {
  FileOps ops;
  {
    // TOC.txt without Filter.db: written at fp chance 1.0; a filter would change TOC.txt.
    testing::TempDir tmp;
    SstableRecipe recipe;
    recipe.filter = FilterState::kAbsent;
    const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
    testing::WriteAll(s.prefix + "TOC.txt", AsBytes(std::string_view("Data.db\nIndex.db\n")));
    Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(0.01), ops);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("TOC.txt"), std::string::npos);
  }
  {
    // ScyllaDB 2026.2's component digests in Scylla.db.
    testing::TempDir tmp;
    SstableRecipe recipe;
    recipe.version = "me";
    recipe.scylla_db = true;
    recipe.scylla_digests = true;
    const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
    const auto before = testing::FilesUnder(s.table_dir);
    Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kUnsupported);
    EXPECT_EQ(testing::FilesUnder(s.table_dir), before);
    // Without digests, the same ScyllaDB sstable is repaired.
    testing::TempDir tmp2;
    recipe.scylla_digests = false;
    const MadeSstable t = testing::MakeSstable(tmp2.path(), recipe);
    EXPECT_TRUE(RepairSstable(t.prefix + "Data.db", Request(), ops).ok());
  }
  {
    // An unfinished Cassandra transaction in the folder.
    testing::TempDir tmp;
    const MadeSstable s = testing::MakeSstable(tmp.path(), SstableRecipe{});
    testing::WriteAll(s.table_dir + "/nb_txn_compaction_1234.log", ByteVector(4));
    Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("transaction"), std::string::npos);
  }
  {
    // Buckets per element are not how a 1.2+ filter is sized.
    testing::TempDir tmp;
    const MadeSstable s = testing::MakeSstable(tmp.path(), SstableRecipe{});
    RepairRequest r = Request();
    r.buckets_per_element = 10;
    Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", r, ops);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  }
}

// A table whose bloom_filter_fp_chance is 1.0 has no filter by design: nothing to repair.
TEST(CassandraRepair, RecordedFpChanceOneMeansNoFilter) {
  testing::TempDir tmp;
  SstableRecipe recipe;
  recipe.recorded_fp = 1.0;
  recipe.filter = FilterState::kAbsent;
  const MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
  const auto before = testing::FilesUnder(s.table_dir);
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", Request(), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->action, RepairAction::kUnchanged);
  EXPECT_EQ(testing::FilesUnder(s.table_dir), before);
}

TEST(CassandraRepair, BackupUnderADirectoryMirrorsTheLayout) {
  testing::TempDir tmp, backup;
  const MadeSstable s = testing::MakeSstable(tmp.path(), SstableRecipe{});
  const ByteVector old_filter = testing::ReadAll(s.prefix + "Filter.db");
  FileOps ops;
  RepairRequest r = Request();
  r.backup = DirectoryBackup(backup.path(), "ks/t-0123456789abcdef0123456789abcdef");
  Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", r, ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::string copy = backup.path() + "/ks/t-0123456789abcdef0123456789abcdef/";
  EXPECT_EQ(out->backup_folder + "/", copy);
  EXPECT_EQ(testing::ReadAll(copy + "nb-1-big-Filter.db"), old_filter);
  EXPECT_FALSE(fs::exists(copy + "manifest.json"));
  EXPECT_FALSE(fs::exists(s.table_dir + "/snapshots"));
  // Without a backup nothing is kept.
  testing::TempDir tmp2;
  const MadeSstable t = testing::MakeSstable(tmp2.path(), SstableRecipe{});
  r.backup = NoBackup();
  ASSERT_TRUE(RepairSstable(t.prefix + "Data.db", r, ops).ok());
  EXPECT_FALSE(fs::exists(t.table_dir + "/snapshots"));
}

// Verify's count saves the counting pass: given it, or a wrong one (the stream is then counted),
// the filter is the one the counting pass gives.
TEST(CassandraRepair, TheRebuildTakesVerifysCountAndRecountsAWrongOne) {
  testing::TempDir tmp;
  for (const char* version : {"nb", "da"}) {
    SstableRecipe recipe;
    recipe.version = version;
    recipe.format = std::string(version) == "da" ? "bti" : "big";
    recipe.keys = 700;
    const MadeSstable s = testing::MakeSstable(tmp.path() + "/" + version, recipe);
    Result<SstableSet> set = FindSstableSet(s.prefix + "Data.db");
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    Result<std::unique_ptr<KeyStream>> keys = SstableKeys(set->files);
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    const Era era = set->files.descriptor.era();
    const Result<RebuiltFilter> counted = RebuildFilter(**keys, era, GivenFpChance(0.001));
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    EXPECT_EQ(counted->keys, 700u);
    for (const std::uint64_t expected : {700u, 699u, 701u, 0u}) {
      const Result<RebuiltFilter> r = RebuildFilter(**keys, era, GivenFpChance(0.001), expected);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->keys, 700u) << version << " " << expected;
      EXPECT_EQ(r->bytes, counted->bytes) << version << " " << expected;
    }
  }
}

// RepairPaths plans Cassandra sstables side by side (one per core) and finishes them one at a
// time: the files and rows are the ones RepairSstable makes for each in turn.
TEST(CassandraRepair, SstablesPlannedSideBySideEndAsRepairedOneAtATime) {
  testing::TempDir side, alone;
  const std::vector<SstableRecipe> recipes = [] {
    std::vector<SstableRecipe> r(5);
    r[1].filter = FilterState::kMissingKeys;
    r[2].version = "oa";
    r[2].filter = FilterState::kSound;
    r[3].version = "da";
    r[3].format = "bti";
    r[4].filter = FilterState::kAbsent;
    for (std::size_t i = 0; i < r.size(); ++i) r[i].seed = static_cast<unsigned>(i + 1);
    return r;
  }();
  std::vector<std::string> paths;
  std::vector<MadeSstable> side_made, alone_made;
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    const std::string name = "/t" + std::to_string(i);
    side_made.push_back(testing::MakeSstable(side.path() + name, recipes[i]));
    alone_made.push_back(testing::MakeSstable(alone.path() + name, recipes[i]));
    paths.push_back(side.path() + name);
  }
  RepairOptions options;
  options.fp_chance = 0.001;
  options.no_backup = true;
  const Result<RepairReport> report = RepairPaths(paths, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->tables.size(), recipes.size());
  FileOps ops;
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    RepairRequest r = Request(0.001);
    r.backup = NoBackup();
    Result<RepairOutcome> out = RepairSstable(alone_made[i].prefix + "Data.db", r, ops);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const TableRepair& row = report->tables[i];
    EXPECT_EQ(row.path, side_made[i].prefix + "Data.db") << i;
    EXPECT_EQ(row.action, "repaired") << i;
    EXPECT_EQ(row.keys, out->keys) << i;
    EXPECT_EQ(row.new_filter_bytes, out->new_filter_bytes) << i;
    const auto a = testing::FilesUnder(side_made[i].table_dir);
    const auto b = testing::FilesUnder(alone_made[i].table_dir);
    EXPECT_EQ(a, b) << i;
  }
}

// The tap (cassandra/rebuild_tap.h): the hashes verify keeps as it asks the old filter build the
// filter the keys' own passes build, byte for byte, whatever verify's split into windows, ranges
// and chunks and its threads; the tap is complete only when verify read every key and they fit.
TEST(CassandraRepair, TheTapsHashesBuildTheFilterTheKeysBuild) {
  testing::TempDir tmp;
  for (const char* version : {"ja", "nb", "oa", "da"}) {
    for (const FilterState state : {FilterState::kSound, FilterState::kMissingKeys}) {
      SstableRecipe recipe;
      recipe.version = version;
      recipe.format = std::string(version) == "da" ? "bti" : "big";
      recipe.keys = 900;
      recipe.filter = state;
      const std::string root =
          tmp.path() + "/" + version + (state == FilterState::kSound ? "-sound" : "-missing");
      const MadeSstable s = testing::MakeSstable(root, recipe);
      Result<SstableSet> set = FindSstableSet(s.prefix + "Data.db");
      ASSERT_TRUE(set.ok()) << set.status().ToString();
      const Era era = set->files.descriptor.era();
      Result<std::unique_ptr<KeyStream>> keys = SstableKeys(set->files);
      ASSERT_TRUE(keys.ok()) << keys.status().ToString();
      const Result<RebuiltFilter> own = RebuildFilter(**keys, era, GivenFpChance(0.001));
      ASSERT_TRUE(own.ok()) << own.status().ToString();
      const FileReport plain = VerifySstable(set->files);
      for (const unsigned threads : {1u, 4u}) {
        for (const StreamLimits limits : {StreamLimits{}, StreamLimits{300, 100, 7}}) {
          const std::string what = std::string(version) + " " + std::to_string(threads) +
                                   " threads, window " + std::to_string(limits.window_bytes);
          RebuildTap tap(std::uint64_t{1} << 20);
          SstableFiles files = set->files;
          files.limits = limits;
          files.tap = &tap;
          FileReport report;
          WorkPool(threads).Run(1, [&](std::size_t) { report = VerifySstable(files); });
          EXPECT_EQ(report.keys_checked, plain.keys_checked) << what;
          EXPECT_EQ(report.false_negative_count, plain.false_negative_count) << what;
          ASSERT_TRUE(tap.complete()) << what;
          EXPECT_EQ(tap.count(), 900u) << what;
          const Result<std::optional<RebuiltFilter>> built =
              RebuildFilterFromHashes(tap.chunks(), era, GivenFpChance(0.001));
          ASSERT_TRUE(built.ok()) << built.status().ToString();
          ASSERT_TRUE(built->has_value()) << what;
          EXPECT_EQ((*built)->keys, own->keys) << what;
          EXPECT_EQ((*built)->bytes, own->bytes) << what;
        }
      }
      // Past its budget the tap keeps nothing; the repair then reads the keys again.
      RebuildTap small(16 * 899);
      SstableFiles files = set->files;
      files.tap = &small;
      VerifySstable(files);
      EXPECT_FALSE(small.complete()) << version;
    }
  }
  // An index cut short: verify read some keys only, the tap is not complete.
  const MadeSstable cut = testing::MakeSstable(tmp.path() + "/cut", SstableRecipe{});
  ByteVector index = testing::ReadAll(cut.prefix + "Index.db");
  index.resize(index.size() - 3);
  testing::WriteAll(cut.prefix + "Index.db", index);
  Result<SstableSet> set = FindSstableSet(cut.prefix + "Data.db");
  ASSERT_TRUE(set.ok());
  RebuildTap tap(std::uint64_t{1} << 20);
  SstableFiles files = set->files;
  files.tap = &tap;
  const FileReport r = VerifySstable(files);
  EXPECT_TRUE(HasError(r));
  EXPECT_FALSE(tap.complete());
}

}  // namespace
}  // namespace bloomcodec::cassandra
