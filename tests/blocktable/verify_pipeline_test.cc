// blocktable/verify.h: the contracts of the plug-in hooks neither LevelDB nor RocksDB uses (a
// mask over key kinds, CheckValue), through a plug-in of the tests' own over tables written by
// TableWriter whose plain keys carry a trailer of the test's choosing. The same report under every
// split of the data blocks into ranges and chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "blocktable/verify.h"
#include "bloomcodec/input_file.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::blocktable {
namespace {

using bloomcodec::testing::TempDir;
using leveldb::TableReader;

// A stored key: "user-NNNNN" then an 8-byte trailer whose first byte is the kind.
ByteVector StoredKey(int i, std::uint8_t kind) {
  char user[16];
  std::snprintf(user, sizeof user, "user-%05d", i);
  ByteVector key(user, user + 10);
  key.push_back(kind);
  key.insert(key.end(), 7, 0);
  return key;
}

ByteVector Value(int i, bool bad) {
  const std::string v = bad ? "bad" : "value-" + std::to_string(i);
  return ByteVector(v.begin(), v.end());
}

struct Entry {
  ByteVector key;
  ByteVector value;
};

// A table of the entries; small blocks make several ranges under the split limits.
std::string WriteTable(const TempDir& dir, const std::vector<Entry>& entries,
                       std::size_t block_size = 256) {
  leveldb::TableWriteOptions options;
  options.block_size = block_size;
  leveldb::TableWriter writer(options);
  for (const Entry& e : entries) EXPECT_TRUE(writer.Add(e.key, e.value).ok());
  Result<ByteVector> table = writer.Finish();
  EXPECT_TRUE(table.ok());
  const std::string path = dir.path() + "/" + std::to_string(block_size) + ".ldb";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(table->data()),
             static_cast<std::streamsize>(table->size()));
  return path;
}

// The table's entries with the file offset of each (what a block's ErrorAt names), walked
// apart from the pipeline.
std::vector<std::uint64_t> EntryOffsets(const std::string& path) {
  std::vector<std::uint64_t> offsets;
  Result<InputFile> in = InputFile::Open(path);
  leveldb::TableOpenOptions options;
  options.key_kind = KeyKind::kPlain;
  Result<TableReader> table = TableReader::Open(in->bytes(), path, options);
  EXPECT_TRUE(table.ok());
  EXPECT_TRUE(table
                  ->ForEachDataBlock([&](ByteSpan, const BlockHandle& h) -> Status {
                    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, table->ReadDataBlock(h));
                    BlockIterator it(block, KeyOrder::kBytewise);
                    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
                    while (it.valid()) {
                      offsets.push_back(h.offset + it.entry_position());
                      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
                    }
                    return Status();
                  })
                  .ok());
  return offsets;
}

class AnswersYes final : public RangeFilter {
 public:
  std::size_t Ask(const FilterChunk& chunk, std::span<std::uint8_t> answers, Status&) override {
    std::fill(answers.begin(), answers.end(), std::uint8_t{1});
    return chunk.keys.size();
  }
};

// The tests' table format: the setup is the test's; every hook it does not test is the plainest.
class TestTable final : public VerifyPlugin {
 public:
  explicit TestTable(VerifySetup setup) : setup_(setup) {}

  std::string_view format_name() const override { return "test-table"; }
  bool Open(ByteSpan file, const std::string& path, FileReport& report) override {
    leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kPlain;
    options.verify_checksums = true;
    Result<TableReader> t = TableReader::Open(file, path, options);
    if (!t.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, t.status()));
      return false;
    }
    table_.emplace(std::move(t).value());
    return true;
  }
  VerifySetup setup() const override { return setup_; }
  Status CheckBeforeData() const override { return Status(); }
  IndexLayout index_layout() const override {
    return {&table_->index_block(), KeyOrder::kBytewise};
  }
  Result<BlockHandle> DecodeIndexValue(const IndexEntry& entry) const override {
    return table_->DecodeIndexValue(entry);
  }
  Result<Block> ReadDataBlock(const BlockHandle& handle) const override {
    return table_->ReadDataBlock(handle);
  }
  Status CheckValue(const DataBlockView& block, std::size_t entry_position, ByteSpan key,
                    ByteSpan value) const override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      values_seen_.push_back(ByteVector(key.begin(), key.end()));
    }
    if (std::string_view(reinterpret_cast<const char*>(value.data()), value.size()) == "bad") {
      return block.block.ErrorAt(entry_position, "a value of ours", "\"bad\"");
    }
    return Status();
  }
  // With kDistinct a filter that answers "may contain" for everything (the scan counts the
  // filter's entries only while it asks one).
  std::unique_ptr<RangeFilter> NewRangeFilter() const override {
    if (setup_.asked != StoredKeys::kDistinct) return nullptr;
    return std::make_unique<AnswersYes>();
  }
  bool ReportStoredKeys(const ScanTotals& totals, FileReport& report) const override {
    report.keys_checked = totals.entries;
    kind_counts_ = totals.kind_counts;
    return true;
  }
  std::string_view filter_description() const override { return "the test filter"; }
  Status MayContainBatch(const KeyList&, std::span<std::uint8_t> answers) const override {
    std::fill(answers.begin(), answers.end(), std::uint8_t{1});
    return Status();
  }
  // The count of what a builder added, as the fill's sized keys (so that the splits compare it).
  void ReportFill(const ScanTotals& totals, FileReport& report) const override {
    if (setup_.asked != StoredKeys::kDistinct) return;
    FillReport fill;
    fill.sized_keys = static_cast<double>(totals.filter_entries);
    report.fill = fill;
  }

  // What the last verify saw (the keys CheckValue was given, sorted; the kind counters).
  std::vector<ByteVector> TakeValuesSeen() {
    std::vector<ByteVector> seen = std::move(values_seen_);
    values_seen_.clear();
    std::sort(seen.begin(), seen.end());
    return seen;
  }
  const std::array<std::uint64_t, kKindCounters>& kind_counts() const { return kind_counts_; }

 private:
  VerifySetup setup_;
  std::optional<TableReader> table_;
  mutable std::mutex mutex_;
  mutable std::vector<ByteVector> values_seen_;
  mutable std::array<std::uint64_t, kKindCounters> kind_counts_{};
};

// Kinds as Pebble's format v4 stores them: the top bit is a flag, the kind the low 7 bits.
TEST(VerifyPipeline, KindsAreMaskedCountedAndAnInvalidOneIsDamageAtItsEntry) {
  TempDir dir;
  const std::uint8_t kinds[] = {0x01, 0x81, 0x02, 0x01, 0x82, 0x01};
  std::vector<Entry> entries;
  std::uint64_t ones = 0, twos = 0;
  for (int i = 0; i < 300; ++i) {
    std::uint8_t kind = kinds[i % 6];
    if (i == 211 || i == 250) kind = 0x85;  // 5 (masked) has no place in a data block
    ones += (kind & 0x7f) == 1;
    twos += (kind & 0x7f) == 2;
    entries.push_back({StoredKey(i, kind), Value(i, false)});
  }
  const std::string path = WriteTable(dir, entries);
  KindFlags flags{};
  flags[1] = 1 << 0;
  flags[2] = 1 << 1;
  flags[5] = kKindInvalid | (1 << 2);
  VerifySetup setup;
  setup.keys = {8, 0x7f, &flags};
  TestTable plugin(setup);
  const FileReport report = testing::ExpectSameUnderEverySplit(
      [&] { return VerifyBlockTable(path, plugin, nullptr, "g"); }, path);

  EXPECT_EQ(report.keys_checked, entries.size());
  EXPECT_EQ(plugin.kind_counts()[0], ones);
  EXPECT_EQ(plugin.kind_counts()[1], twos);
  EXPECT_EQ(plugin.kind_counts()[2], 2u);  // an invalid kind still counts
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, finding_kind::kStructure);
  EXPECT_EQ(report.findings[0].offset, EntryOffsets(path)[211]);
  EXPECT_NE(report.findings[0].message.find("kind 133"), std::string::npos)
      << report.findings[0].message;  // the kind byte as stored, flag included
}

TEST(VerifyPipeline, EveryValueIsCheckedOnceAndItsDamageFollowsTheKindsOfItsBlock) {
  TempDir dir;
  std::vector<Entry> entries;
  for (int i = 0; i < 300; ++i) entries.push_back({StoredKey(i, 1), Value(i, i == 120)});
  const std::string path = WriteTable(dir, entries);
  VerifySetup setup;
  setup.keys.trailer_bytes = 8;
  setup.check_values = true;
  TestTable plugin(setup);
  for (const StreamLimits& limits : {testing::WholeTable(), testing::Split(3, 1)}) {
    const FileReport report = testing::VerifyWithLimits(
        [&] { return VerifyBlockTable(path, plugin, nullptr, "g"); }, limits, 4);
    // Every entry once until the damage; once damage is found no value is checked any more.
    const std::vector<ByteVector> seen = plugin.TakeValuesSeen();
    EXPECT_GE(seen.size(), 121u);
    EXPECT_TRUE(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].offset, EntryOffsets(path)[120]);
    EXPECT_NE(report.findings[0].message.find("a value of ours"), std::string::npos);
  }

  // In one block, an invalid kind after the bad value is reported first (kinds, then values).
  std::vector<Entry> one_block;
  for (int i = 0; i < 40; ++i) {
    one_block.push_back({StoredKey(i, i == 30 ? 9 : 1), Value(i, i == 10)});
  }
  const std::string both = WriteTable(dir, one_block, 4096);
  KindFlags flags{};
  flags[9] = kKindInvalid;
  setup.keys.kind_flags = &flags;
  TestTable kinds_first(setup);
  const FileReport report = VerifyBlockTable(both, kinds_first, nullptr, "g");
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].offset, EntryOffsets(both)[30]);
}

// A capped prefix extractor of `*context` bytes (RocksDB's rocksdb.CappedPrefix.N).
bool CappedPrefix(const void* context, ByteSpan user_key, ByteSpan& prefix) {
  prefix = user_key.first(std::min(user_key.size(), *static_cast<const std::size_t*>(context)));
  return true;
}

// What a builder added: each distinct whole key, each prefix once per run of equal ones, and a
// prefix equal to the whole key just added not again (a bits builder drops the adjacent repeat),
// whatever the split.
TEST(VerifyPipeline, FilterEntriesCountAKeyThatIsItsOwnPrefixOnce) {
  TempDir dir;
  std::vector<Entry> entries;
  for (int i = 0; i < 300; ++i) entries.push_back({StoredKey(i, 1), Value(i, false)});
  const std::string path = WriteTable(dir, entries);
  // Keys "user-NNNNN": capped at 10 or more each is its own prefix; at 8 ("user-000", -001,
  // -002) three prefixes.
  for (const auto& [length, whole, expected] :
       {std::tuple<std::size_t, bool, double>{10, true, 300},
        {12, true, 300},
        {8, true, 303},
        {10, false, 300},
        {8, false, 3}}) {
    VerifySetup setup;
    setup.keys.trailer_bytes = 8;
    setup.asked = StoredKeys::kDistinct;
    setup.filter_holds_whole_keys = whole;
    setup.prefix = {CappedPrefix, &length};
    TestTable plugin(setup);
    const FileReport report = testing::ExpectSameUnderEverySplit(
        [&] { return VerifyBlockTable(path, plugin, nullptr, "g"); }, path);
    ASSERT_TRUE(report.fill.has_value());
    EXPECT_EQ(report.fill->sized_keys, std::optional<double>(expected))
        << "capped:" << length << (whole ? " with whole keys" : " prefixes only");
  }
}

}  // namespace
}  // namespace bloomcodec::blocktable
