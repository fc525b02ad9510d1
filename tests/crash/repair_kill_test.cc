// The whole repair command killed (issue 30): `bloomcodec repair DB --bits-per-key 14` run as a
// process on a database written by Debian's LevelDB 1.23 or RocksDB 7.8 (linked here) and
// killed with SIGKILL at a moment drawn from a fixed seed within the time a whole repair of it
// takes (measured first, so a slower build, ASan's, is killed across its whole run too). After
// each kill:
//   - verify of the directory reports no error (ExpectNoError);
//   - the files the killed repair left that the database does not reference are only of kinds
//     its reader removes or ignores (NNNNNN.dbtmp, unreferenced tables, a MANIFEST CURRENT
//     does not name), and after the reader's open no temporary file nor unreferenced table is
//     left;
//   - the original reader opens the database (RocksDB with paranoid checks and SST unique-id
//     verification) and reads every key with its value;
//   - its live tables are all the old ones or all the new ones a whole repair writes, each
//     byte for byte (so every filter is wholly old or wholly new, all alike);
//   - a second repair completes (exit 0), after which the reader reads every key again and the
//     live tables hold exactly the filter blocks a whole repair writes, and nothing the repairs
//     made is left in the directory.
// A kill can land after the repair finished: such a round counts as finished. A few rounds in
// CI; BLOOMCODEC_KILL_ROUNDS (and BLOOMCODEC_KILL_SEED) for more.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/table.h>

#include <fstream>
#include <memory>
#include <set>

#include "bloomcodec/input_file.h"
#include "crash/kill_harness.h"
#include "leveldb/table/table_reader.h"
#include "repair/repair_harness.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::crash_test {
namespace {

constexpr int kKeys = 4000;

std::string KeyOf(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08d", i);
  return buf;
}

// Letters drawn from (i, generation): little for Snappy to shrink, so the tables are several.
std::string ValueAt(int i, int generation) {
  std::string value(30 + i % 50, ' ');
  std::uint32_t x =
      static_cast<std::uint32_t>(i) * 2654435761u + static_cast<std::uint32_t>(generation);
  for (char& c : value) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>('a' + (x >> 16) % 26);
  }
  return value;
}

// The value the writer leaves for key i: every third key was overwritten in a later table.
std::string ValueOf(int i) { return ValueAt(i, i % 3 == 0 ? 1 : 0); }

// Puts keys [from, to) into `db` (LevelDB's or RocksDB's) with their first values (generation
// 0), or (`overwrite`) every third of them with its final one.
template <typename Db>
bool PutKeys(Db& db, int from, int to, bool overwrite) {
  for (int i = from; i < to; ++i) {
    if (overwrite && i % 3 != 0) continue;
    if (!db.Put({}, KeyOf(i), ValueAt(i, overwrite ? 1 : 0)).ok()) return false;
  }
  return true;
}

// Every key reads with its final value.
template <typename Db>
bool ReadsEveryKey(Db& db) {
  for (int i = 0; i < kKeys; ++i) {
    std::string value;
    if (!db.Get({}, KeyOf(i), &value).ok() || value != ValueOf(i)) return false;
  }
  return true;
}

// Opens the database in `dir` with `options` (LevelDB's or RocksDB's); null when it refuses.
template <typename Db, typename Options>
std::unique_ptr<Db> OpenDb(Options options, const std::string& dir, bool create) {
  options.create_if_missing = create;
  Db* raw = nullptr;
  if (!Db::Open(options, dir, &raw).ok()) return nullptr;
  return std::unique_ptr<Db>(raw);
}

void WriteNumbers(const std::string& path, const std::set<std::uint64_t>& numbers) {
  std::ofstream out(path);
  for (std::uint64_t n : numbers) out << n << "\n";
}

std::set<std::uint64_t> ReadNumbers(const std::string& path) {
  std::ifstream in(path);
  std::set<std::uint64_t> out;
  for (std::uint64_t n; in >> n;) out.insert(n);
  return out;
}

// How one database's original writes and reads it, each in a child process (the originals'
// background threads do not survive a fork).
struct Engine {
  std::string name;       // for the figures
  std::string extension;  // of its tables
  std::function<int(const std::string& db)> write;
  // Opens `db`, reads every key with its value, writes the live tables' numbers to `live`:
  // 0, or 1 when it does not open, 2 when a key is missing or wrong.
  std::function<int(const std::string& db, const std::string& live)> read;
};

// --- LevelDB 1.23 ---

::leveldb::Options LevelDbOptions() {
  // Made once a child process, which ends without freeing it.
  static const ::leveldb::FilterPolicy* const policy = ::leveldb::NewBloomFilterPolicy(10);
  ::leveldb::Options options;
  options.block_size = 1024;
  options.filter_policy = policy;
  options.paranoid_checks = true;
  return options;
}

int LevelDbWrite(const std::string& dir) {
  std::unique_ptr<::leveldb::DB> db = OpenDb<::leveldb::DB>(LevelDbOptions(), dir, true);
  if (!db) return 1;
  // Eight tables of 500 keys, one a memtable (LevelDB's smallest, 64 KiB, holds them) pushed
  // down by CompactRange: no table overlaps another, so each Get reads one table and the
  // reader's Gets never start a seek compaction (LevelDB cannot be told not to compact), and
  // the live tables stay the ones the repair left. (LevelDB raises max_file_size to 1 MiB: a
  // compaction would write one table.)
  for (int from = 0; from < kKeys; from += 500) {
    if (!PutKeys(*db, from, from + 500, false) || !PutKeys(*db, from, from + 500, true)) return 2;
    db->CompactRange(nullptr, nullptr);
  }
  return 0;
}

int LevelDbRead(const std::string& dir, const std::string& live) {
  std::unique_ptr<::leveldb::DB> db = OpenDb<::leveldb::DB>(LevelDbOptions(), dir, false);
  if (!db) return 1;
  if (!ReadsEveryKey(*db)) return 2;
  // "--- level N ---" headers, then " NUMBER:SIZE[...]" a table.
  std::string tables;
  db->GetProperty("leveldb.sstables", &tables);
  std::set<std::uint64_t> numbers;
  std::istringstream lines(tables);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 1 && line[0] == ' ') numbers.insert(std::stoull(line.substr(1)));
  }
  WriteNumbers(live, numbers);
  return 0;
}

// --- RocksDB 7.8 ---

::rocksdb::Options RocksDbOptions() {
  ::rocksdb::Options options;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 32 << 10;
  options.paranoid_checks = true;
  options.verify_sst_unique_id_in_manifest = true;
  ::rocksdb::BlockBasedTableOptions table;
  table.block_size = 1024;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

int RocksDbWrite(const std::string& dir) {
  std::unique_ptr<::rocksdb::DB> db = OpenDb<::rocksdb::DB>(RocksDbOptions(), dir, true);
  if (!db) return 1;
  if (!PutKeys(*db, 0, kKeys, false)) return 2;
  ::rocksdb::CompactRangeOptions deep;
  deep.change_level = true;
  deep.target_level = 2;
  if (!db->Flush({}).ok() || !db->CompactRange(deep, nullptr, nullptr).ok()) return 2;
  // The overwrites in a level-0 table over them.
  if (!PutKeys(*db, 0, kKeys, true) || !db->Flush({}).ok()) return 2;
  return db->Close().ok() ? 0 : 2;
}

int RocksDbRead(const std::string& dir, const std::string& live) {
  std::unique_ptr<::rocksdb::DB> db = OpenDb<::rocksdb::DB>(RocksDbOptions(), dir, false);
  if (!db) return 1;
  if (!ReadsEveryKey(*db)) return 2;
  std::vector<::rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::set<std::uint64_t> numbers;
  for (const auto& f : files) numbers.insert(f.file_number);
  WriteNumbers(live, numbers);
  return db->Close().ok() ? 0 : 2;
}

// --- the kill loop ---

using Tables = std::map<std::uint64_t, std::string>;  // number -> the file's bytes

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string TableName(std::uint64_t number, const std::string& extension) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06llu", static_cast<unsigned long long>(number));
  return buf + extension;
}

Tables TablesOf(const std::string& db, const std::set<std::uint64_t>& numbers,
                const std::string& extension) {
  Tables out;
  for (std::uint64_t n : numbers) out[n] = ReadWhole(db + "/" + TableName(n, extension));
  return out;
}

std::set<std::uint64_t> NumbersOf(const Tables& tables) {
  std::set<std::uint64_t> out;
  for (const auto& t : tables) out.insert(t.first);
  return out;
}

// The filter blocks of `tables` as our readers find them, in order.
std::multiset<std::string> FilterBlocks(const Tables& tables, const std::string& extension) {
  std::multiset<std::string> out;
  for (const auto& t : tables) {
    const ByteSpan bytes = AsBytes(t.second);
    std::optional<ByteSpan> filter;
    if (extension == ".sst") {
      Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(bytes, "table");
      if (sst.ok() && sst->filter()) filter = sst->filter()->contents.bytes();
    } else {
      leveldb::TableOpenOptions options;
      options.key_kind = KeyKind::kUser;
      Result<leveldb::TableReader> table = leveldb::TableReader::Open(bytes, "table", options);
      if (table.ok() && table->filter()) filter = table->filter()->contents.bytes();
    }
    EXPECT_TRUE(filter.has_value()) << TableName(t.first, extension);
    if (filter)
      out.insert(std::string(reinterpret_cast<const char*>(filter->data()), filter->size()));
  }
  return out;
}

// The files in `db` that are none of the database's own (CURRENT, LOCK, logs, LOG, IDENTITY,
// OPTIONS, the MANIFEST CURRENT names, the tables `known`).
std::vector<std::string> Strangers(const std::string& db, const std::set<std::uint64_t>& known,
                                   const std::string& extension) {
  std::string current = ReadWhole(db + "/CURRENT");
  if (!current.empty()) current.pop_back();
  std::set<std::string> own = {"CURRENT", "LOCK", "IDENTITY", current};
  for (std::uint64_t n : known) own.insert(TableName(n, extension));
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(db)) {
    const std::string name = e.path().filename().string();
    if (own.count(name) > 0 || name.starts_with("LOG") || name.starts_with("OPTIONS-") ||
        name.ends_with(".log")) {
      continue;
    }
    out.push_back(name);
  }
  return out;
}

// The kind of a file's name (its digits left out), for the figures.
std::string KindOf(std::string name) {
  std::erase_if(name, [](char c) { return c >= '0' && c <= '9'; });
  return name;
}

// What the database removes or ignores at its next open: temporary files, tables and MANIFESTs
// nothing references.
bool RemovedOrIgnored(const std::string& name, const std::string& extension) {
  return name.ends_with(".dbtmp") || name.ends_with(extension) || name.starts_with("MANIFEST-");
}

struct RepairRounds {
  int old_seen = 0, new_seen = 0;
  std::map<std::string, int> left_by_kill;  // kind -> how often a killed repair left one
  // Rounds after whose second repair a MANIFEST CURRENT does not name is still there: one a
  // killed repair wrote is numbered above the database's, which LevelDB and RocksDB keep (as
  // they keep one their own manifest roll leaves when it is cut short).
  int manifests_kept = 0;
};

// After a kill: the leftovers, the reader's open, all old or all new, a second repair. "" when
// every check holds, else the first that failed.
std::string CheckRound(const Engine& e, const std::string& db, const std::string& live_file,
                       const Tables& old_tables, const Tables& new_tables,
                       const std::vector<std::string>& repair, RepairRounds& seen) {
  std::set<std::uint64_t> known = NumbersOf(old_tables);
  known.merge(NumbersOf(new_tables));
  for (const std::string& name : Strangers(db, known, e.extension)) {
    ++seen.left_by_kill[KindOf(name)];
    if (!RemovedOrIgnored(name, e.extension)) return "the killed repair left " + name;
  }
  if (const int rc = RunChild([&] { return e.read(db, live_file); }); rc != 0) {
    return "the reader fails on the database the kill left (" + std::to_string(rc) + ")";
  }
  const Tables live = TablesOf(db, ReadNumbers(live_file), e.extension);
  if (live == old_tables) {
    ++seen.old_seen;
  } else if (live == new_tables) {
    ++seen.new_seen;
  } else {
    return "the live tables are neither the old ones nor the new ones, byte for byte";
  }
  for (const std::string& name : Strangers(db, NumbersOf(live), e.extension)) {
    if (!name.starts_with("MANIFEST-")) return "left after the reader's open: " + name;
  }
  std::string said;
  if (RunProgram(repair, said) != 0) return "the second repair failed: " + said;
  if (const int rc = RunChild([&] { return e.read(db, live_file); }); rc != 0) {
    return "the reader fails after the second repair (" + std::to_string(rc) + ")";
  }
  const Tables again = TablesOf(db, ReadNumbers(live_file), e.extension);
  if (FilterBlocks(again, e.extension) != FilterBlocks(new_tables, e.extension)) {
    return "after the second repair the filters are not the ones a whole repair writes";
  }
  bool manifest = false;
  for (const std::string& name : Strangers(db, NumbersOf(again), e.extension)) {
    if (name.ends_with(".dbtmp") || name.ends_with(e.extension)) return "left: " + name;
    manifest = manifest || name.starts_with("MANIFEST-");
  }
  seen.manifests_kept += manifest ? 1 : 0;
  return "";
}

void RunRepairKills(const Engine& e, std::uint32_t seed) {
  TempDir tmp("repair" + e.extension);
  const std::string original = tmp.path() + "/original", db = tmp.path() + "/db";
  const std::string live_file = tmp.path() + "/live.txt";
  ASSERT_EQ(RunChild([&] { return e.write(original); }), 0);
  // The reader's open first: it writes what is still in the log to a table.
  ASSERT_EQ(RunChild([&] { return e.read(original, live_file); }), 0);
  const Tables old_tables = TablesOf(original, ReadNumbers(live_file), e.extension);
  ASSERT_GE(old_tables.size(), 3u) << Listing(original);
  // A whole repair: the new tables, and how long a repair of this database takes here.
  const std::vector<std::string> repair = {BLOOMCODEC_CLI, "repair", db, "--bits-per-key", "14"};
  repair_test::CopyDatabase(original, db);
  std::string said;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(RunProgram(repair, said), 0) << said;
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  ASSERT_EQ(RunChild([&] { return e.read(db, live_file); }), 0);
  const Tables new_tables = TablesOf(db, ReadNumbers(live_file), e.extension);
  ASSERT_EQ(new_tables.size(), old_tables.size());
  ASSERT_NE(FilterBlocks(new_tables, e.extension), FilterBlocks(old_tables, e.extension));
  RepairRounds seen;
  // The first quarter of a run is the process starting and verify reading: it is kept out of
  // the window, so that CI's few kills also land in the writes and the switch.
  KillLoop loop(e.name, db, seed, took / 4, took);
  loop.ci_rounds = 5;
  loop.may_finish = true;
  loop.before = [&](int) { repair_test::CopyDatabase(original, db); };
  loop.run = [&](std::uint32_t, std::chrono::microseconds delay, int& exit_code) {
    return KillProgramAfter(repair, delay, exit_code, true);
  };
  loop.reopen = [&](const std::string&, const RoundFigures&) {
    return CheckRound(e, db, live_file, old_tables, new_tables, repair, seen);
  };
  const KillTotals totals = RunKillLoop(loop);
  std::printf(
      "%s: a whole repair took %lld us; %d finished before the kill; %d opened with the "
      "old tables, %d with the new ones\n",
      e.name.c_str(), static_cast<long long>(took.count()), totals.finished, seen.old_seen,
      seen.new_seen);
  for (const auto& [kind, n] : seen.left_by_kill) std::printf("  %dx left: %s\n", n, kind.c_str());
  std::printf("  %d rounds with a MANIFEST CURRENT does not name after the second repair\n",
              seen.manifests_kept);
}

TEST(RepairKilled, LevelDbOpensWithAllOldOrAllNewFiltersAndASecondRepairCompletes) {
  RunRepairKills({"repair of libleveldb 1.23", ".ldb", LevelDbWrite, LevelDbRead}, 3030);
}

TEST(RepairKilled, RocksDbOpensWithAllOldOrAllNewFiltersAndASecondRepairCompletes) {
  RunRepairKills({"repair of librocksdb 7.8", ".sst", RocksDbWrite, RocksDbRead}, 3078);
}

}  // namespace
}  // namespace bloomcodec::crash_test
