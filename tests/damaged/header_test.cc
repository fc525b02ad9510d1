// Headers that lie and structures that point nowhere, through the `bloomcodec` binary: counts far
// beyond the file, negative counts, k = 0 and k > 30, Java streams of the wrong class, version or
// array type, LevelDB block handles outside the file or at the footer itself, varints that never
// end, bad magic and bad CRCs. Each is refused (exit 2, file, offset, expectation) or, where the
// original reads it, answered as the original answers; peak memory stays within RssBoundKib.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "blocktable/crc32c.h"
#include "blocktable/footer.h"
#include "codec/byte_writer.h"
#include "damaged/damaged_runner.h"
#include "leveldb/leveldb_internal.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

const std::string kKeys = "\nkey0\nkey1\nbloomcodec\nuser-000042\n";
constexpr std::size_t kKeyCount = 5;

struct Damaged {
  DamagedDir dir;
  std::string keys = dir.Write("keys.txt", kKeys);
  std::string file;

  Child Probe(const std::string& format, ByteSpan bytes) {
    file = dir.Write("damaged.bin", bytes);
    Child r = RunChild({"probe", "--format", format, "--keys", keys, file});
    EXPECT_LE(r.peak_rss_kib, RssBoundKib(bytes.size())) << "baseline " << BaselineRssKib();
    return r;
  }
};

std::string Repeat(const char* line, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += line;
  return s;
}

ByteVector Header(std::int32_t first, std::int32_t second, std::size_t total) {
  ByteVector bytes;
  ByteWriter w(bytes);
  w.PutBigI32(first);
  w.PutBigI32(second);
  bytes.resize(total, 0);
  return bytes;
}

void PutBigI32At(ByteVector& bytes, std::size_t at, std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(u >> (24 - 8 * i));
}

// ---- Cassandra 1.0 Filter.db: i32 K, i32 W, W words ----

TEST(DamagedCassandra, WordCountFarBeyondTheFile) {
  Damaged d;
  Child r = d.Probe("cassandra-1.0", Header(3, 0x7fffffff, 100));
  ExpectCorruptMessage(r, "probe", d.file, 8);
  EXPECT_NE(r.err.find("2147483647 words"), std::string::npos) << r.err;
}

TEST(DamagedCassandra, NegativeAndZeroWordCounts) {
  for (std::int32_t w : {-1, std::numeric_limits<std::int32_t>::min(), 0}) {
    Damaged d;
    Child r = d.Probe("cassandra-1.0", Header(3, w, 100));
    ExpectCorruptMessage(r, "probe", d.file, 4);
    EXPECT_NE(r.err.find("byte 4: expected a word count >= 1"), std::string::npos) << r.err;
  }
}

TEST(DamagedCassandra, NegativeHashCount) {
  Damaged d;
  Child r = d.Probe("cassandra-1.0", Header(-5, 1, 16));
  ExpectCorruptMessage(r, "probe", d.file, 0);
  EXPECT_NE(r.err.find("byte 0: expected a hash count >= 0"), std::string::npos) << r.err;
}

TEST(DamagedCassandra, ZeroHashCountAnswersPresentAsTheOriginal) {
  // BloomFilter.isPresent with no hash functions tests no bit: every key "may be present".
  Damaged d;
  Child r = d.Probe("cassandra-1.0", Header(0, 1, 16));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Repeat("1\n", kKeyCount));
}

TEST(DamagedCassandra, HashCountAboveThirtyIsReadAsWritten) {
  // Cassandra never caps K: 31 or 1000 hash functions are probed like any other count.
  for (std::int32_t k : {31, 1000}) {
    Damaged d;
    ByteVector clear = Header(k, 2, 24);
    Child r = d.Probe("cassandra-1.0", clear);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, Repeat("0\n", kKeyCount));
    ByteVector full = clear;
    std::fill(full.begin() + 8, full.end(), 0xff);
    r = d.Probe("cassandra-1.0", full);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, Repeat("1\n", kKeyCount));
  }
}

// K = 2^31 - 1 with every bit set: each of the original's K tests passes, so every key is
// answered 1; with every bit clear the first test fails. Many keys, so that a K loop per key
// (seconds each) would make the test time out rather than pass slowly.
constexpr std::int32_t kHugeK = std::numeric_limits<std::int32_t>::max();
constexpr std::size_t kManyKeys = 2000;

std::string ManyKeys() {
  std::string keys;
  for (std::size_t i = 0; i < kManyKeys; ++i) keys += "key-" + std::to_string(i) + "\n";
  return keys;
}

Child ProbeMany(Damaged& d, const std::string& format, ByteSpan bytes) {
  d.file = d.dir.Write("damaged.bin", bytes);
  const std::string keys = d.dir.Write("many.txt", ManyKeys());
  Child r = RunChild({"probe", "--format", format, "--keys", keys, d.file});
  EXPECT_LE(r.peak_rss_kib, RssBoundKib(bytes.size())) << "baseline " << BaselineRssKib();
  return r;
}

TEST(DamagedCassandra, HugeHashCountWithEveryBitSetAnswersPromptly) {
  ByteVector full = Header(kHugeK, 1, 16);  // the audit's 16-byte filter
  std::fill(full.begin() + 8, full.end(), 0xff);
  Damaged d;
  Child r = ProbeMany(d, "cassandra-1.0", full);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Repeat("1\n", kManyKeys));
  ByteVector clear = Header(kHugeK, 1, 16);
  r = ProbeMany(d, "cassandra-1.0", clear);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Repeat("0\n", kManyKeys));
  // verify with the keys: every key is answered present (no false negative), and the hash
  // count is a finding.
  const std::string keys = d.dir.Write("many.txt", ManyKeys());
  d.file = d.dir.Write("Standard1-hc-1-Filter.db", full);
  r = RunChild({"verify", "--keys", keys, "--json", d.file});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << " " << r.err;
  EXPECT_NE(r.out.find("\"keys_checked\": 2000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"false_negative_count\": 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"hash-count\""), std::string::npos) << r.out;
}

// ---- Cassandra legacy: i32 K + the JDK's serialization of a java.util.BitSet ----

ByteVector LegacyFixture() { return ReadFixture("cassandra-1.0/legacy/legacy_n10_b15.Filter.db"); }

// Fixture integrity, not a test of our code: the offsets the damage below writes at.
TEST(DamagedLegacyFixtureIntegrity, LayoutIsTheOneTheseTestsDamage) {
  ByteVector f = LegacyFixture();
  ASSERT_EQ(f.size(), 77u + 8 * 3);
  EXPECT_EQ(std::string(f.begin() + 12, f.begin() + 28), "java.util.BitSet");
  EXPECT_EQ(std::string(f.begin() + 57, f.begin() + 59), "[J");
}

TEST(DamagedLegacy, WrongClassNameVersionOrArrayType) {
  struct Edit {
    std::size_t at;
    std::uint8_t value;
    const char* what;
  };
  const Edit edits[] = {
      {27, 'T', "class name java.util.BitSeT"},
      {12, 'J', "class name Java.util.BitSet"},
      {28, 0x00, "serialVersionUID"},
      {35, 0x00, "serialVersionUID (last byte)"},
      {50, 'I', "field type [I"},
      {58, 'I', "array class [I"},
      {4, 0xAB, "stream magic"},
      {7, 0x04, "stream version"},
  };
  for (const Edit& e : edits) {
    SCOPED_TRACE(e.what);
    ByteVector f = LegacyFixture();
    ASSERT_NE(f[e.at], e.value);
    f[e.at] = e.value;
    Damaged d;
    Child r = d.Probe("cassandra-legacy", f);
    ExpectCorruptMessage(r, "probe", d.file, e.at);
  }
}

TEST(DamagedLegacy, ArrayLengthFarBeyondTheFileOrNegative) {
  for (std::int32_t w : {0x7fffffff, 1 << 25, -1, std::numeric_limits<std::int32_t>::min()}) {
    SCOPED_TRACE(w);
    ByteVector f = LegacyFixture();
    PutBigI32At(f, 72, w);
    Damaged d;
    Child r = d.Probe("cassandra-legacy", f);
    ExpectCorruptMessage(r, "probe", d.file, f.size());
  }
}

TEST(DamagedLegacy, MissingEndOfBlockData) {
  ByteVector f = LegacyFixture();
  f.back() = 0x77;
  Damaged d;
  Child r = d.Probe("cassandra-legacy", f);
  ExpectCorruptMessage(r, "probe", d.file, f.size() - 1);
}

TEST(DamagedLegacy, HugeHashCountWithEveryBitSetAnswersPromptly) {
  ByteVector f = LegacyFixture();
  PutBigI32At(f, 0, kHugeK);
  std::fill(f.begin() + 76, f.end() - 1, 0xff);  // the 3 words; TC_ENDBLOCKDATA stays
  Damaged d;
  Child r = ProbeMany(d, "cassandra-legacy", f);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Repeat("1\n", kManyKeys));
}

// ---- Cassandra row filter: i32 L, then L bytes holding a filter ----

TEST(DamagedRowFilter, LengthFarBeyondTheRowNegativeOrZero) {
  const ByteVector row = ReadFixture("cassandra-1.0/rowfilter/row_est100_names100.bin");
  for (std::int32_t l : {0x7fffffff, -1, 0}) {
    SCOPED_TRACE(l);
    ByteVector f = row;
    PutBigI32At(f, 0, l);
    Damaged d;
    Child r = d.Probe("cassandra-1.0-row", f);
    ExpectCorruptMessage(r, "probe", d.file, 4);
  }
}

TEST(DamagedRowFilter, InnerWordCountBeyondTheLength) {
  ByteVector f = ReadFixture("cassandra-1.0/rowfilter/row_est100_names100.bin");
  PutBigI32At(f, 8, 0x7fffffff);  // the inner Filter.db's W
  Damaged d;
  Child r = d.Probe("cassandra-1.0-row", f);
  ExpectCorruptMessage(r, "probe", d.file, f.size());
}

TEST(DamagedRowFilter, HugeInnerHashCountWithEveryBitSetAnswersPromptly) {
  ByteVector f = ReadFixture("cassandra-1.0/rowfilter/row_est100_names100.bin");
  PutBigI32At(f, 4, kHugeK);  // the inner Filter.db's K
  std::fill(f.begin() + 12, f.end(), 0xff);
  Damaged d;
  Child r = ProbeMany(d, "cassandra-1.0-row", f);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Repeat("1\n", kManyKeys));
}

// ---- LevelDB raw filters: any bytes are a filter; the original's edge cases ----

std::string LevelDbAnswers(ByteSpan filter) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  Result<KeyList> keys = ParseKeyFile(AsBytes(kKeys), KeyFormat::kText, "keys");
  std::string out;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    ByteSpan k = (*keys)[i];
    out += policy->KeyMayMatch(
               ::leveldb::Slice(reinterpret_cast<const char*>(k.data()), k.size()),
               ::leveldb::Slice(reinterpret_cast<const char*>(filter.data()), filter.size()))
               ? "1\n"
               : "0\n";
  }
  return out;
}

TEST(DamagedLevelDbBloom, EdgeCasesAnswerAsLevelDb) {
  const ByteVector real = ReadFixture("leveldb/raw/filters/bpk10_n100.bin");
  std::vector<std::pair<std::string, ByteVector>> cases = {
      {"empty", {}},
      {"one byte", {0x06}},
      {"k = 0", {0xff, 0xff, 0x00}},
      {"k = 31", {0x00, 0x00, 31}},
      {"k = 255", {0x00, 255}},
      {"k = 30 all clear", {0x00, 0x00, 30}},
      {"k = 30 all set", {0xff, 0xff, 30}},
  };
  ByteVector k0 = real;
  k0.back() = 0;
  cases.push_back({"real filter, k = 0", k0});
  ByteVector k31 = real;
  k31.back() = 31;
  cases.push_back({"real filter, k = 31", k31});
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    Damaged d;
    Child r = d.Probe("leveldb-bloom", bytes);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, LevelDbAnswers(bytes));
  }
}

// ---- LevelDB filter blocks: the original reader never fails ----

std::string LevelDbBlockAnswers(ByteSpan block) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  ::leveldb::FilterBlockReader reader(
      policy.get(), ::leveldb::Slice(reinterpret_cast<const char*>(block.data()), block.size()));
  Result<KeyList> keys = ParseKeyFile(AsBytes(kKeys), KeyFormat::kText, "keys");
  std::string out;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    ByteSpan k = (*keys)[i];
    out +=
        reader.KeyMayMatch(0, ::leveldb::Slice(reinterpret_cast<const char*>(k.data()), k.size()))
            ? "1\n"
            : "0\n";
  }
  return out;
}

TEST(DamagedLevelDbFilterBlock, LyingOffsetsAnswerAsLevelDb) {
  const ByteVector real = ReadFixture("leveldb/tables/tb_bpk10_snappy_bs256.filterblock.bin");
  ASSERT_GT(real.size(), 9u);
  const std::size_t trailer = real.size() - 5;
  auto with_u32 = [&](std::size_t at, std::uint32_t v) {
    ByteVector b = real;
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    return b;
  };
  std::uint32_t array = 0;
  for (int i = 0; i < 4; ++i) array |= std::uint32_t{real[trailer + i]} << (8 * i);
  std::vector<std::pair<std::string, ByteVector>> cases = {
      {"array offset far beyond", with_u32(trailer, 0xfffffff0u)},
      {"array offset = its own position", with_u32(trailer, static_cast<std::uint32_t>(trailer))},
      {"filter 0 starts beyond the array", with_u32(array, 0x7fffffffu)},
      {"filter 0 ends before it starts", with_u32(array + 4, 0)},
  };
  ByteVector lg = real;
  lg.back() = 64;
  cases.push_back({"base_lg 64", lg});
  lg.back() = 0;
  cases.push_back({"base_lg 0", lg});
  cases.push_back({"four bytes", ByteVector(real.end() - 4, real.end())});
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    Damaged d;
    Child r = d.Probe("leveldb-filter-block", bytes);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, LevelDbBlockAnswers(bytes));
  }
}

// ---- LevelDB tables: footer, handles, varints, CRCs ----

// A small table of ours (several data blocks, a filter, an index), byte-identical to LevelDB's.
ByteVector SmallTable() {
  leveldb::TableWriteOptions options;
  options.block_size = 256;
  options.filter = leveldb::BloomPolicy::Current(10);
  leveldb::TableWriter writer(options);
  for (int i = 0; i < 200; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "key%06d", i);
    EXPECT_TRUE(writer.Add(AsBytes(std::string_view(key)), AsBytes("value")).ok());
  }
  Result<ByteVector> table = writer.Finish();
  EXPECT_TRUE(table.ok());
  return std::move(table).value();
}

ByteVector WithFooter(ByteVector table, const blocktable::Footer& footer) {
  ByteVector encoded;
  blocktable::AppendFooter(footer, encoded);
  EXPECT_EQ(encoded.size(), blocktable::kLevelDbFooterSize);
  std::copy(encoded.begin(), encoded.end(), table.end() - blocktable::kLevelDbFooterSize);
  return table;
}

TEST(DamagedLevelDbTable, IntactTableProbes) {
  Damaged d;
  Child r = d.Probe("leveldb-table", SmallTable());
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(DamagedLevelDbTable, BadMagic) {
  ByteVector t = SmallTable();
  t.back() ^= 0x01;
  Damaged d;
  Child r = d.Probe("leveldb-table", t);
  ExpectCorruptMessage(r, "probe", d.file, t.size());
}

TEST(DamagedLevelDbTable, HandlesOutsideTheFileOrAtTheFooter) {
  const ByteVector t = SmallTable();
  Result<blocktable::Footer> footer =
      blocktable::DecodeFooter(t, "t", blocktable::TableFamily::kLevelDb);
  ASSERT_TRUE(footer.ok());
  const std::uint64_t size = t.size(), footer_at = size - blocktable::kLevelDbFooterSize;
  struct Lie {
    const char* what;
    blocktable::BlockHandle metaindex, index;
  };
  const Lie lies[] = {
      {"index beyond the end", footer->metaindex_handle, {size + 1000, 10}},
      {"index size beyond the end", footer->metaindex_handle, {0, size}},
      {"index size 2^63", footer->metaindex_handle, {0, std::uint64_t{1} << 63}},
      {"index at the footer itself",
       footer->metaindex_handle,
       {footer_at, blocktable::kLevelDbFooterSize - 5}},
      {"metaindex beyond the end", {size * 2, 100}, footer->index_handle},
      {"metaindex at the footer itself", {footer_at, 43}, footer->index_handle},
      {"index = metaindex", footer->metaindex_handle, footer->metaindex_handle},
  };
  for (const Lie& lie : lies) {
    SCOPED_TRACE(lie.what);
    ByteVector damaged =
        WithFooter(t, {.metaindex_handle = lie.metaindex, .index_handle = lie.index});
    Damaged d;
    Child r = d.Probe("leveldb-table", damaged);
    ExpectCorruptMessage(r, "probe", d.file, damaged.size());
  }
}

TEST(DamagedLevelDbTable, MetaindexHandleAtTheIndexBlockReadsAsNoFilter) {
  // The index block parses as a metaindex too, without a "filter." entry: LevelDB's ReadMeta
  // finds no filter and every lookup reaching a data block may match; a key past the last
  // separator is absent (the index seek ends).
  const ByteVector t = SmallTable();
  Result<blocktable::Footer> footer =
      blocktable::DecodeFooter(t, "t", blocktable::TableFamily::kLevelDb);
  ASSERT_TRUE(footer.ok());
  Damaged d;
  Child r = d.Probe("leveldb-table", WithFooter(t, {.metaindex_handle = footer->index_handle,
                                                    .index_handle = footer->index_handle}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n1\n1\n1\n0\n");  // "", key0, key1, bloomcodec: in range; user-...: past
}

TEST(DamagedLevelDbTable, VarintsThatNeverEnd) {
  ByteVector t = SmallTable();
  // The handles: continuation bits only.
  std::fill(t.end() - blocktable::kLevelDbFooterSize, t.end() - 8, 0xff);
  Damaged d;
  Child r = d.Probe("leveldb-table", t);
  ExpectCorruptMessage(r, "probe", d.file, t.size());
}

// Handles inside the metaindex and index blocks whose varints never end: the block parses (its
// restart array is intact), the handle in an entry's value does not.
ByteVector WithBlockValuesFilled(ByteVector t, const blocktable::BlockHandle& block) {
  // Each entry: shared, non_shared, value_length varints, key, value; the restart array and
  // count follow. Fill every value with continuation bytes (0xff) and fix the block's CRC.
  const std::size_t begin = block.offset, end = block.offset + block.size;
  std::uint32_t restarts = 0;
  for (int i = 0; i < 4; ++i) restarts |= std::uint32_t{t[end - 4 + i]} << (8 * i);
  const std::size_t entries_end = end - 4 - 4 * std::size_t{restarts};
  std::size_t at = begin;
  auto varint = [&]() {
    std::uint32_t v = 0;
    for (int shift = 0; shift < 35 && at < entries_end; shift += 7) {
      const std::uint8_t b = t[at++];
      v |= std::uint32_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) break;
    }
    return v;
  };
  while (at < entries_end) {
    varint();
    const std::uint32_t non_shared = varint();
    const std::uint32_t value_length = varint();
    at += non_shared;
    if (at + value_length > entries_end) break;
    std::fill(t.begin() + static_cast<std::ptrdiff_t>(at),
              t.begin() + static_cast<std::ptrdiff_t>(at + value_length), 0xff);
    at += value_length;
  }
  const std::uint8_t type = t[end];
  const std::uint32_t crc = blocktable::Crc32cExtend(
      blocktable::Crc32c(ByteSpan(t).subspan(begin, block.size)), ByteSpan(&type, 1));
  const std::uint32_t masked = blocktable::MaskCrc(crc);
  for (int i = 0; i < 4; ++i) t[end + 1 + i] = static_cast<std::uint8_t>(masked >> (8 * i));
  return t;
}

TEST(DamagedLevelDbTable, VarintsThatNeverEndInMetaindexAndIndexHandles) {
  const ByteVector t = SmallTable();
  Result<blocktable::Footer> footer =
      blocktable::DecodeFooter(t, "t", blocktable::TableFamily::kLevelDb);
  ASSERT_TRUE(footer.ok());
  const std::pair<const char*, blocktable::BlockHandle> blocks[] = {
      {"metaindex (filter handle)", footer->metaindex_handle},
      {"index (data block handles)", footer->index_handle},
  };
  for (const auto& [what, handle] : blocks) {
    SCOPED_TRACE(what);
    const ByteVector damaged = WithBlockValuesFilled(t, handle);
    ASSERT_NE(damaged, t);
    Damaged d;
    Child r = d.Probe("leveldb-table", damaged);
    ExpectCorruptMessage(r, "probe", d.file, handle.offset + handle.size);
    const std::string needle = "byte ";
    const std::size_t at = r.err.find(needle);
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::uint64_t offset = std::stoull(r.err.substr(at + needle.size()));
    EXPECT_GE(offset, handle.offset) << r.err;  // inside the damaged block, not elsewhere
    r = RunChild({"verify", d.file});
    EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code << " " << r.err;
    EXPECT_LE(r.peak_rss_kib, RssBoundKib(damaged.size()));
  }
}

// A Snappy block whose length header claims 805 MB: refused before anything is allocated, with
// the default 1 GiB limit, because 265 compressed bytes cannot expand beyond a few KB.
TEST(DamagedLevelDbTable, SnappyLengthBeyondWhatTheBlockCanHoldIsRefusedBeforeAllocating) {
  const std::string fixture = "leveldb/tables/tb_bpk10_snappy_bs256";
  ByteVector t = ReadFixture(fixture + ".ldb");
  // The first Snappy-compressed data block (blocks.tsv: index, offset, size, compression, ...).
  std::istringstream tsv(ReadFixtureText(fixture + ".blocks.tsv"));
  std::string line;
  std::getline(tsv, line);  // header
  std::uint64_t offset = 0, size = 0;
  bool found = false;
  while (!found && std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::uint64_t index = 0;
    int compression = 0;
    fields >> index >> offset >> size >> compression;
    found = compression == 1;
  }
  ASSERT_TRUE(found);
  ASSERT_EQ(t[offset + size], 1);  // the trailer's type byte: Snappy
  // 805306368 as a 5-byte varint over the start of the block, and a CRC that matches again.
  const std::uint8_t claim[5] = {0x80, 0x80, 0x80, 0x80, 0x03};
  std::copy(std::begin(claim), std::end(claim), t.begin() + static_cast<std::ptrdiff_t>(offset));
  const std::uint8_t type = 1;
  const std::uint32_t masked = blocktable::MaskCrc(blocktable::Crc32cExtend(
      blocktable::Crc32c(ByteSpan(t).subspan(offset, size)), ByteSpan(&type, 1)));
  for (int i = 0; i < 4; ++i) {
    t[offset + size + 1 + i] = static_cast<std::uint8_t>(masked >> (8 * i));
  }
  Damaged d;
  d.file = d.dir.Write("000005.ldb", t);
  Child r = RunChild({"convert", d.file, "-o", d.dir.Path("out.ldb"), "--to", "leveldb-table",
                      "--bits-per-key", "5"});
  ExpectCorruptMessage(r, "convert", d.file, offset);
  EXPECT_NE(r.err.find("byte " + std::to_string(offset) + ": expected an uncompressed"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("805306368"), std::string::npos) << r.err;
  EXPECT_LE(r.peak_rss_kib, RssBoundKib(t.size())) << "baseline " << BaselineRssKib();
  r = RunChild({"verify", d.file});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_LE(r.peak_rss_kib, RssBoundKib(t.size())) << "baseline " << BaselineRssKib();
}

TEST(DamagedLevelDbTable, BadCrcIsReportedWhenChecksumsAreVerified) {
  ByteVector t = SmallTable();
  t[10] ^= 0x20;  // inside the first data block
  // The original's read path (and `probe`) does not verify CRCs by default; verification does.
  leveldb::TableOpenOptions options;
  options.verify_checksums = true;
  Result<leveldb::TableReader> table = leveldb::TableReader::Open(t, "000005.ldb", options);
  Status s = table.ok() ? table->Verify().status() : table.status();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.file(), "000005.ldb");
  ASSERT_TRUE(s.offset().has_value()) << s.ToString();
  EXPECT_LT(*s.offset(), t.size());
  EXPECT_NE(s.ToString().find("CRC"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace bloomcodec::testing
