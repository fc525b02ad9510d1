// Differential tests against the original LevelDB 1.23 (Debian libleveldb):
// * tables written by ::leveldb::TableBuilder with random options: our writer writes the same
//   bytes, our reader finds the same filter, every key is answered present, and every probe is
//   answered as Table::InternalGet's recorded KeyMayMatch call answers; our filter rewrite equals
//   TableBuilder's output with another policy (or none);
// * tables written by our writer are opened by ::leveldb::Table, which finds every key and asks
//   OUR filter (recorded KeyMayMatch calls return our answers);
// * databases (::leveldb::DB with random options, overwrites, deletions under a snapshot, then
//   CompactRange): for every probe, the KeyMayMatch calls DB::Get makes are exactly the filter
//   consultations our lookup makes over the database's tables, with the same filter bytes and
//   answers.
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/table_builder.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb_table/leveldb_harness.h"
#include "leveldb_table/rc_bounded.h"

namespace bloomcodec::leveldb {
namespace {

using namespace bloomcodec::blocktable;  // the block-based table this format is

using leveldb_test::RecordingPolicy;
using leveldb_test::StringSink;
using leveldb_test::StringSource;

std::string RandomKey(std::mt19937_64& rng) {
  std::string key;
  switch (rng() % 4) {
    case 0: {  // arbitrary bytes
      const std::size_t n = rng() % 25;
      for (std::size_t i = 0; i < n; ++i) key.push_back(static_cast<char>(rng() & 0xff));
      break;
    }
    case 1:  // the readable keys users write
      key = "user:" + std::to_string(rng() % 100000);
      break;
    default: {  // few symbols: shared prefixes, 0xff runs, keys that are prefixes of others
      static const char kSymbols[] = {'\0', 'a', 'b', '\xfe', '\xff'};
      const std::size_t n = rng() % 7;
      for (std::size_t i = 0; i < n; ++i) key.push_back(kSymbols[rng() % 5]);
      break;
    }
  }
  return key;
}

std::string RandomValue(std::mt19937_64& rng, std::size_t max_len) {
  std::string v(rng() % (max_len + 1), '\0');
  // Compressible half the time, so that Snappy is both kept and refused.
  const bool repetitive = rng() % 2 == 0;
  for (char& c : v) c = static_cast<char>(repetitive ? 'v' : (rng() & 0xff));
  return v;
}

// Probes: every key, some absent keys, near misses of present keys.
std::vector<std::string> Probes(const std::vector<std::string>& keys, std::mt19937_64& rng) {
  std::vector<std::string> probes = keys;
  for (int i = 0; i < 60; ++i) probes.push_back(RandomKey(rng));
  for (std::size_t i = 0; i < std::min<std::size_t>(keys.size(), 40); ++i) {
    std::string k = keys[rng() % keys.size()];
    switch (rng() % 3) {
      case 0: k.push_back(static_cast<char>(rng() & 0xff)); break;
      case 1:
        if (!k.empty()) k.pop_back();
        break;
      default:
        if (!k.empty()) k[rng() % k.size()] ^= 1;
        break;
    }
    probes.push_back(k);
  }
  return probes;
}

std::string BuildWithLevelDb(const std::vector<std::pair<std::string, std::string>>& entries,
                             const ::leveldb::Options& options) {
  StringSink sink;
  ::leveldb::TableBuilder builder(options, &sink);
  for (const auto& [k, v] : entries) builder.Add(k, v);
  EXPECT_TRUE(builder.Finish().ok());
  return sink.contents;
}

ByteSpan Bytes(const std::string& s) { return AsBytes(s); }

struct InternalGetResult {
  bool found = false;
  std::string value;
};

void SaveValue(void* arg, const ::leveldb::Slice& k, const ::leveldb::Slice& v) {
  auto* r = static_cast<std::pair<std::string, InternalGetResult>*>(arg);
  if (k.ToString() == r->first) {
    r->second.found = true;
    r->second.value = v.ToString();
  }
}

// Opens `bytes` with the original Table and runs InternalGet for `key`.
struct OriginalTable {
  std::unique_ptr<StringSource> source;
  std::unique_ptr<::leveldb::Table> table;
};

OriginalTable OpenOriginal(const std::string& bytes, const ::leveldb::Options& options) {
  OriginalTable t;
  t.source = std::make_unique<StringSource>(bytes);
  ::leveldb::Table* table = nullptr;
  ::leveldb::Status s = ::leveldb::Table::Open(options, t.source.get(), bytes.size(), &table);
  EXPECT_TRUE(s.ok()) << s.ToString();
  t.table.reset(table);
  return t;
}

TEST(TableBuilderDifferential, SameBytesSameFilterSameAnswers) {
  testing_support::CheckBounded(100, 100, [] {
    std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>());
    // Sizes from the seeded generator: RapidCheck's ranges shrink with its size parameter, and
    // most cases would then be tiny.
    const int n = static_cast<int>(rng() % 1200);
    const int bits_per_key = *rc::gen::inRange(0, 32);
    const std::size_t block_size =
        *rc::gen::element<std::size_t>(1, 64, 256, 1000, 4096, 1 + rng() % 3000);
    const int restart_interval = *rc::gen::inRange(1, 33);
    const bool snappy = *rc::gen::arbitrary<bool>();
    std::set<std::string> unique;
    for (int i = 0; i < n; ++i) unique.insert(RandomKey(rng));
    std::vector<std::string> keys(unique.begin(), unique.end());  // bytewise order
    RC_TAG(keys.size() / 100 * 100);
    std::vector<std::pair<std::string, std::string>> entries;
    for (const std::string& k : keys) entries.emplace_back(k, RandomValue(rng, 120));

    RecordingPolicy policy(bits_per_key);
    ::leveldb::Options options;
    options.block_size = block_size;
    options.block_restart_interval = restart_interval;
    options.compression = snappy ? ::leveldb::kSnappyCompression : ::leveldb::kNoCompression;
    options.filter_policy = &policy;
    const std::string original = BuildWithLevelDb(entries, options);

    // Our writer: the same bytes.
    TableWriteOptions ours;
    ours.block_size = block_size;
    ours.restart_interval = restart_interval;
    ours.compression = snappy ? BlockCompression::kSnappy : BlockCompression::kNone;
    ours.filter = BloomPolicy::Current(bits_per_key);
    TableWriter writer(ours);
    for (const auto& [k, v] : entries) RC_ASSERT(writer.Add(Bytes(k), Bytes(v)).ok());
    auto written = writer.Finish();
    RC_ASSERT(written.ok());
    RC_ASSERT(AsChars(*written) == original);

    // Our reader: the same filter, every key present, every probe as InternalGet's filter call.
    TableOpenOptions open;
    open.key_kind = KeyKind::kPlain;
    open.verify_checksums = true;
    auto reader = TableReader::Open(Bytes(original), "builder.ldb", open);
    RC_ASSERT(reader.ok());
    RC_ASSERT(reader->filter().has_value());
    RC_ASSERT(reader->filter()->metaindex_key == "filter.leveldb.BuiltinBloomFilter2");
    KeyList present;
    for (const std::string& k : keys) present.Add(k);
    std::vector<std::uint8_t> answers(present.size());
    RC_ASSERT(reader->MayContainBatch(present, answers).ok());
    RC_ASSERT(std::count(answers.begin(), answers.end(), 1) == static_cast<long>(keys.size()));

    OriginalTable table = OpenOriginal(original, options);
    RC_ASSERT(table.table != nullptr);
    for (const std::string& probe : Probes(keys, rng)) {
      policy.calls.clear();
      std::pair<std::string, InternalGetResult> result{probe, {}};
      RC_ASSERT(::leveldb::TableCache::BloomcodecInternalGet(
                    table.table.get(), ::leveldb::ReadOptions(), probe, &result, SaveValue)
                    .ok());
      auto trace = reader->Trace(Bytes(probe));
      RC_ASSERT(trace.ok());
      // With a filter, InternalGet asks it exactly when the index seek finds a block.
      RC_ASSERT(policy.calls.size() == (trace->filter_asked ? 1u : 0u));
      const bool expected = !policy.calls.empty() && policy.calls[0].result;
      RC_ASSERT(trace->answer == expected);
      if (trace->filter_asked) {
        RC_ASSERT(policy.calls[0].key == probe);
        const auto choice = reader->filter()->contents.bytes();
        const FilterBlockReader fr(choice, HashFlavor::kUnsignedTail);
        RC_ASSERT(AsChars(fr.FilterFor(trace->block.offset).filter) == policy.calls[0].filter);
      }
      if (result.second.found) RC_ASSERT(trace->answer);
    }

    // Rewriting the filter equals TableBuilder with the other policy (or none).
    const int other_bits = *rc::gen::inRange(0, 32);
    RecordingPolicy other(other_bits);
    ::leveldb::Options other_options = options;
    other_options.filter_policy = &other;
    auto rewritten = RewriteTableFilter(*reader, BloomPolicy::Current(other_bits));
    RC_ASSERT(rewritten.ok());
    RC_ASSERT(AsChars(*rewritten) == BuildWithLevelDb(entries, other_options));
    other_options.filter_policy = nullptr;
    auto removed = RewriteTableFilter(*reader, std::nullopt);
    RC_ASSERT(removed.ok());
    RC_ASSERT(AsChars(*removed) == BuildWithLevelDb(entries, other_options));
  });
}

// Tables written by our writer, opened by LevelDB: every key found with its value, and LevelDB
// asks our filter (the recorded calls return what our reader answers). Index keys are left
// unshortened half the time, which LevelDB must read just as well.
TEST(OurTablesInLevelDb, OpenedReadAndFilteredByTheOriginal) {
  testing_support::CheckBounded(60, 100, [] {
    std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>());
    const int n = 1 + static_cast<int>(rng() % 800);
    TableWriteOptions ours;
    ours.block_size = *rc::gen::element<std::size_t>(1, 100, 512, 4096);
    ours.restart_interval = *rc::gen::inRange(1, 20);
    ours.compression =
        *rc::gen::arbitrary<bool>() ? BlockCompression::kSnappy : BlockCompression::kNone;
    const int bits_per_key = *rc::gen::inRange(1, 25);
    ours.filter = BloomPolicy::Current(bits_per_key);
    ours.shorten_index_keys = *rc::gen::arbitrary<bool>();
    std::set<std::string> unique;
    for (int i = 0; i < n; ++i) unique.insert(RandomKey(rng));
    std::vector<std::string> keys(unique.begin(), unique.end());
    std::vector<std::string> values;
    TableWriter writer(ours);
    for (const std::string& k : keys) {
      values.push_back(RandomValue(rng, 64));
      RC_ASSERT(writer.Add(Bytes(k), Bytes(values.back())).ok());
    }
    auto written = writer.Finish();
    RC_ASSERT(written.ok());
    const std::string bytes(AsChars(*written));

    RecordingPolicy policy(bits_per_key);
    ::leveldb::Options options;
    options.filter_policy = &policy;
    options.paranoid_checks = true;
    OriginalTable table = OpenOriginal(bytes, options);
    RC_ASSERT(table.table != nullptr);
    ::leveldb::ReadOptions read;
    read.verify_checksums = true;
    std::unique_ptr<::leveldb::Iterator> it(table.table->NewIterator(read));
    std::size_t i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
      RC_ASSERT(i < keys.size());
      RC_ASSERT(it->key().ToString() == keys[i]);
      RC_ASSERT(it->value().ToString() == values[i]);
    }
    RC_ASSERT(it->status().ok());
    RC_ASSERT(i == keys.size());

    TableOpenOptions open;
    open.key_kind = KeyKind::kPlain;
    auto reader = TableReader::Open(*written, "ours.ldb", open);
    RC_ASSERT(reader.ok());
    std::size_t calls = 0;
    for (const std::string& probe : Probes(keys, rng)) {
      policy.calls.clear();
      std::pair<std::string, InternalGetResult> result{probe, {}};
      RC_ASSERT(::leveldb::TableCache::BloomcodecInternalGet(table.table.get(), read, probe,
                                                             &result, SaveValue)
                    .ok());
      auto ours_answer = reader->MayContain(Bytes(probe));
      RC_ASSERT(ours_answer.ok());
      RC_ASSERT(policy.calls.size() <= 1u);
      calls += policy.calls.size();
      const bool original = !policy.calls.empty() && policy.calls[0].result;
      RC_ASSERT(*ours_answer == original);
      if (unique.count(probe)) {
        RC_ASSERT(result.second.found);
        RC_ASSERT(policy.calls.size() == 1u);
      }
    }
    RC_ASSERT(calls >= keys.size());  // LevelDB consulted our filter for every present key
  });
}

int LevelsWithFiles(::leveldb::DB& db) {
  int levels = 0;
  for (int level = 0; level < 7; ++level) {
    std::string files;
    if (db.GetProperty("leveldb.num-files-at-level" + std::to_string(level), &files) &&
        files != "0") {
      // Level-0 files may overlap one another: count each as its own level.
      levels += level == 0 ? std::stoi(files) : 1;
    }
  }
  return levels;
}

// A whole database: DB::Get's filter consultations are exactly ours.
TEST(DatabaseDifferential, GetConsultsTheFiltersWeConsult) {
  testing_support::CheckBounded(25, 100, [] {
    std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>());
    const int bits_per_key = *rc::gen::inRange(1, 30);
    RecordingPolicy policy(bits_per_key);
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.error_if_exists = true;
    options.filter_policy = &policy;
    options.block_size = *rc::gen::element<std::size_t>(256, 1024, 2100, 4096, 6100);
    options.block_restart_interval = *rc::gen::inRange(1, 24);
    options.compression =
        *rc::gen::arbitrary<bool>() ? ::leveldb::kSnappyCompression : ::leveldb::kNoCompression;
    options.write_buffer_size = 64 << 10;  // LevelDB's minimum: bigger DBs get several tables
    const auto dir =
        std::filesystem::temp_directory_path() /
        ("bloomcodec_ldbt_" + std::to_string(::getpid()) + "_" + std::to_string(rng()));
    std::filesystem::remove_all(dir);
    std::vector<std::string> keys;
    std::set<std::string> written;
    {
      ::leveldb::DB* raw = nullptr;
      RC_ASSERT(::leveldb::DB::Open(options, dir.string(), &raw).ok());
      std::unique_ptr<::leveldb::DB> db(raw);
      const int n = 20 + static_cast<int>(rng() % 6000);
      std::set<std::string> unique;
      for (int i = 0; i < n; ++i) unique.insert(RandomKey(rng));
      keys.assign(unique.begin(), unique.end());
      written = unique;
      std::shuffle(keys.begin(), keys.end(), rng);
      // Long values sometimes: LevelDB cuts tables at >= 1 MiB, so those give several tables.
      const std::size_t max_value = *rc::gen::element<std::size_t>(200, 4000);
      for (const std::string& k : keys) {
        RC_ASSERT(db->Put({}, k, RandomValue(rng, max_value)).ok());
      }
      // Overwrites and deletions while a snapshot holds the old versions: tables then hold
      // several versions of a user key and deletion markers, all hashed by the filter.
      const ::leveldb::Snapshot* snapshot =
          *rc::gen::arbitrary<bool>() ? db->GetSnapshot() : nullptr;
      for (std::size_t i = 0; i < keys.size() / 4; ++i) {
        const std::string& k = keys[rng() % keys.size()];
        if (rng() % 2) {
          RC_ASSERT(db->Put({}, k, RandomValue(rng, 50)).ok());
        } else {
          RC_ASSERT(db->Delete({}, k).ok());
        }
      }
      db->CompactRange(nullptr, nullptr);
      if (snapshot) db->ReleaseSnapshot(snapshot);
      // Leave every table on one level. Otherwise a Get that asks two tables charges a "seek" to
      // the first, and after enough of them LevelDB compacts in the background while we probe,
      // asking tables that did not exist when we listed the directory.
      for (int round = 0; round < 8 && LevelsWithFiles(*db) > 1; ++round) {
        db->CompactRange(nullptr, nullptr);
      }
      RC_ASSERT(LevelsWithFiles(*db) == 1);
    }
    // The tables as they are on disk now, then the database reopened for probing.
    std::vector<std::string> table_files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".ldb") table_files.push_back(entry.path().string());
    }
    std::sort(table_files.begin(), table_files.end());
    RC_ASSERT(!table_files.empty());
    RC_TAG(keys.size() / 2000 * 2000, table_files.size() > 1 ? "several tables" : "one table");
    std::vector<std::string> contents;
    std::vector<TableReader> readers;
    contents.reserve(table_files.size());
    for (const std::string& f : table_files) {
      std::ifstream in(f, std::ios::binary);
      contents.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    for (std::size_t i = 0; i < table_files.size(); ++i) {
      TableOpenOptions open;
      open.key_kind = KeyKind::kUser;
      open.verify_checksums = true;
      auto r = TableReader::Open(Bytes(contents[i]), table_files[i], open);
      RC_ASSERT(r.ok());
      RC_ASSERT(r->filter().has_value());
      // Undirected, the filter itself tells that user keys were hashed.
      auto automatic = TableReader::Open(Bytes(contents[i]), table_files[i], {});
      if (automatic.ok()) {
        RC_ASSERT(automatic->key_kind() == KeyKind::kUser);
      } else {
        RC_ASSERT(automatic.status().code() == StatusCode::kInvalidArgument);
      }
      // Our writer, given the table's entries and the database's options, writes the same file
      // (a database clamps block_size to >= 1024; its filter hashes user keys).
      TableWriteOptions ours;
      ours.key_kind = KeyKind::kUser;
      ours.block_size = std::max<std::size_t>(1024, options.block_size);
      ours.restart_interval = options.block_restart_interval;
      ours.compression = options.compression == ::leveldb::kSnappyCompression
                             ? BlockCompression::kSnappy
                             : BlockCompression::kNone;
      ours.filter = BloomPolicy::Current(bits_per_key);
      TableWriter writer(ours);
      RC_ASSERT(r->ForEachEntry([&](ByteSpan k, ByteSpan v, const BlockHandle&) {
                   return writer.Add(k, v);
                 }).ok());
      auto rewritten = writer.Finish();
      RC_ASSERT(rewritten.ok());
      RC_ASSERT(AsChars(*rewritten) == contents[i]);
      // Every stored version, tombstones included, is answered present by its own table.
      RC_ASSERT(r->ForEachEntry([&](ByteSpan k, ByteSpan, const BlockHandle&) -> Status {
                   auto answer = r->MayContain(UserKeyOf(k));
                   if (!answer.ok()) return answer.status();
                   return *answer ? Status() : Status::InvalidArgument("false negative");
                 }).ok());
      readers.push_back(std::move(r).value());
    }

    ::leveldb::DB* raw = nullptr;
    options.error_if_exists = false;
    RC_ASSERT(::leveldb::DB::Open(options, dir.string(), &raw).ok());
    std::unique_ptr<::leveldb::DB> db(raw);
    for (const std::string& probe : Probes(keys, rng)) {
      policy.calls.clear();
      std::string value;
      const bool found = db->Get({}, probe, &value).ok();
      std::vector<std::pair<std::string, bool>> ours;  // (filter bytes, answer)
      for (const TableReader& r : readers) {
        auto trace = r.Trace(Bytes(probe));
        RC_ASSERT(trace.ok());
        if (!trace->filter_asked) continue;
        const FilterBlockReader fr(r.filter()->contents.bytes(), HashFlavor::kUnsignedTail);
        ours.emplace_back(std::string(AsChars(fr.FilterFor(trace->block.offset).filter)),
                          trace->answer);
      }
      // Several tables may cover a key (level 0, or levels left by compaction). DB::Get asks
      // them newest first and stops at the first that holds the key; each call it makes must be
      // one of ours (same filter bytes, same answer), and for a key never written it asks all.
      std::vector<bool> used(ours.size(), false);
      for (const auto& call : policy.calls) {
        RC_ASSERT(call.key == probe);
        bool matched = false;
        for (std::size_t i = 0; i < ours.size() && !matched; ++i) {
          if (!used[i] && ours[i].first == call.filter && ours[i].second == call.result) {
            used[i] = matched = true;
          }
        }
        RC_ASSERT(matched);
      }
      if (!written.count(probe)) RC_ASSERT(ours.size() == policy.calls.size());
      if (found) {
        RC_ASSERT(std::any_of(ours.begin(), ours.end(), [](const auto& o) { return o.second; }));
      }
    }
    db.reset();
    std::filesystem::remove_all(dir);
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb
