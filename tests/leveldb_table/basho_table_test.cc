// Tables as Basho's LevelDB (Riak's eleveldb) writes them: a "stats.sst1" meta block, Basho's
// bloom2 filter under the name leveldb.BuiltinBloomFilter2, a filter block with its own base_lg,
// and internal keys whose expiry types (2, 3) carry 8 more bytes before the tag. Built here from
// the facts (FORMAT.md, "Basho's LevelDB"): our table writer for the data and index blocks, then
// the filter block, the stats block, the metaindex and the footer assembled as Basho's builder
// orders them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/block_handle.h"
#include "blocktable/crc32c.h"
#include "blocktable/footer.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/leveldb/options.h"
#include "codec/byte_writer.h"
#include "formats/leveldb/family.h"
#include "leveldb/basho_bloom.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb/table/verify.h"

namespace bloomcodec::leveldb {
namespace {

using blocktable::AppendBlockHandle;
using blocktable::AppendFooter;
using blocktable::BlockBuilder;
using blocktable::BlockHandle;
using blocktable::BlockTrailerCrc;
using blocktable::Footer;
using blocktable::kBlockTrailerSize;

constexpr std::uint8_t kBaseLg = 12;  // Basho picks base_lg per table; LevelDB always 11

struct Stored {
  std::string user;
  ByteVector internal;
};

// Distinct user keys of one length, so that bytewise order of the internal keys (what our plain
// writer checks) is Basho's order too. `expiry`: every fifth key is of type 2 and every seventh
// of type 3 (an 8-byte expiry before the tag); every eleventh a deletion.
std::vector<Stored> Keys(std::size_t n, bool expiry) {
  std::vector<Stored> keys;
  for (std::size_t i = 0; i < n; ++i) {
    char user[16];
    std::snprintf(user, sizeof user, "key%06zu\xe9", i * 3);  // a tail byte >= 0x80
    Stored s{user, {}};
    s.internal.assign(s.user.begin(), s.user.end());
    std::uint8_t type = i % 11 == 0 ? 0 : 1;
    if (expiry && i % 5 == 0) type = kBashoTypeValueWriteTime;
    if (expiry && i % 7 == 0) type = kBashoTypeValueExplicitExpiry;
    if (type >= 2) {
      for (int b = 0; b < 8; ++b) s.internal.push_back(static_cast<std::uint8_t>(0x60 + i + b));
    }
    const std::uint64_t tag = (std::uint64_t{1000 + i} << 8) | type;
    for (int b = 0; b < 8; ++b) s.internal.push_back(static_cast<std::uint8_t>(tag >> (8 * b)));
    keys.push_back(std::move(s));
  }
  return keys;
}

struct BashoTable {
  bool stats = true;  // the "stats.sst1" meta block that marks Basho's tables
  // Edits the filter block before its CRC is computed (damage that the CRC does not catch).
  std::function<void(ByteVector&)> edit_filter;
  Bloom2Build build = kBloom2X86_64;  // the writer's platform (its hashes)
};

void PutBlock(ByteVector& out, ByteSpan contents) {
  ByteWriter w(out);
  w.PutBytes(contents);
  w.PutU8(0);
  w.PutLittleU32(BlockTrailerCrc(contents, 0));
}

ByteVector Build(const std::vector<Stored>& keys, const BashoTable& shape) {
  TableWriteOptions options;
  options.block_size = 512;
  options.shorten_index_keys = false;  // whole internal keys as index keys: Basho's order holds
  TableWriter writer(options);         // plain: the keys go in as stored, no filter
  for (const Stored& k : keys) EXPECT_TRUE(writer.Add(k.internal, AsBytes("v")).ok());
  Result<ByteVector> plain = writer.Finish();
  EXPECT_TRUE(plain.ok());
  TableOpenOptions open;
  open.key_kind = KeyKind::kPlain;
  Result<TableReader> t = TableReader::Open(*plain, "plain", open);
  EXPECT_TRUE(t.ok()) << t.status().ToString();

  // The bloom2 filter of each 2^kBaseLg range of data-block offsets, over Basho's user keys.
  std::map<std::uint64_t, KeyList> per_filter;
  std::uint64_t data_end = 0;
  EXPECT_TRUE(t->ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle& block) {
                 per_filter[block.offset >> kBaseLg].Add(BashoUserKeyOf(key));
                 data_end = block.offset + block.size + kBlockTrailerSize;
                 return Status();
               }).ok());
  ByteVector filter_block;
  std::vector<std::uint32_t> offsets;
  const std::uint64_t last = per_filter.rbegin()->first;
  for (std::uint64_t i = 0; i <= last; ++i) {
    offsets.push_back(static_cast<std::uint32_t>(filter_block.size()));
    if (auto it = per_filter.find(i); it != per_filter.end()) {
      AppendBloom2Filter(16, it->second, filter_block,
                         shape.build);  // Basho's default: 16 bits per key
    }
  }
  const auto array_offset = static_cast<std::uint32_t>(filter_block.size());
  ByteWriter fw(filter_block);
  for (std::uint32_t o : offsets) fw.PutLittleU32(o);
  fw.PutLittleU32(array_offset);
  fw.PutU8(kBaseLg);
  if (shape.edit_filter) shape.edit_filter(filter_block);

  ByteVector out(plain->begin(), plain->begin() + data_end);
  const BlockHandle filter_handle{out.size(), filter_block.size()};
  PutBlock(out, filter_block);
  const ByteVector stats_block(24, 0x11);  // its counters: never read
  const BlockHandle stats_handle{out.size(), stats_block.size()};
  PutBlock(out, stats_block);
  BlockBuilder metaindex(1);
  ByteVector value;
  AppendBlockHandle(filter_handle, value);
  metaindex.Add(AsBytes("filter.leveldb.BuiltinBloomFilter2"), value);
  if (shape.stats) {
    value.clear();
    AppendBlockHandle(stats_handle, value);
    metaindex.Add(AsBytes(kBashoStatsMetaKey), value);
  }
  Footer footer;
  footer.metaindex_handle = {out.size(), 0};
  const ByteSpan meta = metaindex.Finish();
  footer.metaindex_handle.size = meta.size();
  PutBlock(out, meta);
  const BlockHandle old_index = t->footer().index_handle;
  footer.index_handle = {out.size(), old_index.size};
  out.insert(out.end(), plain->begin() + old_index.offset,
             plain->begin() + old_index.offset + old_index.size + kBlockTrailerSize);
  AppendFooter(footer, out);
  return out;
}

FileReport VerifyBytes(const ByteVector& bytes, KeyKind kind, const std::string& name) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("basho_" + std::to_string(::getpid()) + name))
          .string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  FileReport report = VerifyTable(path, kind, nullptr, "db");
  std::filesystem::remove(path);
  return report;
}

Severity Worst(const FileReport& r) {
  Severity worst = Severity::kInfo;
  for (const Finding& f : r.findings) worst = std::max(worst, f.severity);
  return worst;
}

ByteVector Internal(const std::string& user, std::uint64_t sequence, std::uint8_t type) {
  ByteVector k(user.begin(), user.end());
  if (type >= 2) k.insert(k.end(), 8, 0xfe);  // the expiry time
  const std::uint64_t tag = sequence << 8 | type;
  for (int b = 0; b < 8; ++b) k.push_back(static_cast<std::uint8_t>(tag >> (8 * b)));
  return k;
}

TEST(BashoTable, KeyOrderCutsTheExpiryAndCountsItsTypeAsAValue) {
  using blocktable::CompareKeys;
  using blocktable::KeyOrder;
  // The user key "a" (with an expiry) sorts before "ab", which kInternal, reading the expiry as
  // part of the user key, gets wrong.
  const ByteVector a_expiry = Internal("a", 5, kBashoTypeValueWriteTime);
  const ByteVector ab = Internal("ab", 4, 1);
  EXPECT_LT(CompareKeys(KeyOrder::kBashoInternal, a_expiry, ab), 0);
  EXPECT_GT(CompareKeys(KeyOrder::kInternal, a_expiry, ab), 0);
  // One user key: newer sequences first, whatever the types.
  EXPECT_LT(CompareKeys(KeyOrder::kBashoInternal, Internal("a", 9, kBashoTypeValueExplicitExpiry),
                        Internal("a", 8, 1)),
            0);
  EXPECT_GT(CompareKeys(KeyOrder::kBashoInternal, Internal("a", 7, 0), Internal("a", 8, 3)), 0);
  // Same sequence: type 1 and the expiry types tie (Basho counts them as 1), above a deletion.
  EXPECT_EQ(CompareKeys(KeyOrder::kBashoInternal, Internal("a", 8, 2), Internal("a", 8, 1)), 0);
  EXPECT_LT(CompareKeys(KeyOrder::kBashoInternal, Internal("a", 8, 2), Internal("a", 8, 0)), 0);
  EXPECT_EQ(ByteVector(BashoUserKeyOf(a_expiry).begin(), BashoUserKeyOf(a_expiry).end()),
            ByteVector({'a'}));
}

TEST(BashoTable, ReadAsBashoEveryKeyPresent) {
  const std::vector<Stored> keys = Keys(1500, true);
  const ByteVector bytes = Build(keys, {});
  Result<TableReader> t = TableReader::Open(bytes, "basho.sst");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->basho());
  EXPECT_EQ(t->key_kind(), KeyKind::kUser);  // decided from the bloom2 filter and Basho's keys
  EXPECT_EQ(t->writer(), "basho-leveldb");
  ASSERT_TRUE(t->filter().has_value());
  EXPECT_EQ(t->filter()->variant, BloomVariant::kBasho2);
  EXPECT_FALSE(t->filter()->v117);
  for (const Stored& k : keys) ASSERT_TRUE(*t->MayContain(AsBytes(k.user))) << k.user;
  Result<std::uint64_t> entries = t->Verify();
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  EXPECT_EQ(*entries, keys.size());

  const FileReport report = VerifyBytes(bytes, KeyKind::kAuto, "ok.sst");
  EXPECT_EQ(report.writer, "basho-leveldb");
  EXPECT_EQ(report.status_name(), "ok");
  EXPECT_EQ(report.false_negative_count, 0u);
  EXPECT_EQ(report.keys_checked, keys.size());
  EXPECT_EQ(Worst(report), Severity::kInfo);
  ASSERT_TRUE(report.fill.has_value());
  EXPECT_GT(report.fill->bits_set, 0u);
  EXPECT_LT(report.fill->fp_rate, 0.01);  // 16 bits per key, k = 11
}

TEST(BashoTable, WithoutStatsTheNameMeansGooglesFilter) {
  // The same filter bytes without stats.sst1: read as LevelDB 1.18+'s filter, which the bloom2
  // bits do not answer for: the detection is what keeps these keys present.
  const std::vector<Stored> keys = Keys(1500, false);
  const ByteVector basho_bytes = Build(keys, {});
  Result<TableReader> basho = TableReader::Open(basho_bytes, "basho.sst");  // reads in place
  ASSERT_TRUE(basho.ok());
  TableOpenOptions user;
  user.key_kind = KeyKind::kUser;
  const ByteVector google_bytes = Build(keys, {.stats = false, .edit_filter = {}});
  Result<TableReader> google = TableReader::Open(google_bytes, "google.sst", user);
  ASSERT_TRUE(google.ok()) << google.status().ToString();
  EXPECT_FALSE(google->basho());
  EXPECT_EQ(google->writer(), "leveldb-1.18+");
  std::size_t misses = 0;
  for (const Stored& k : keys) {
    ASSERT_TRUE(*basho->MayContain(AsBytes(k.user)));
    misses += !*google->MayContain(AsBytes(k.user));
  }
  EXPECT_GT(misses, keys.size() / 2);
  EXPECT_EQ(VerifyBytes(google_bytes, KeyKind::kUser, "g.sst").status_name(), "error");
}

TEST(BashoTable, AClearedFilterBitIsAFalseNegative) {
  const std::vector<Stored> keys = Keys(600, true);
  const ByteVector bytes = Build(keys, {.stats = true, .edit_filter = [](ByteVector& block) {
                                          // The first set bit of filter 0: the key that set it
                                          // now misses it.
                                          auto it = std::find_if(block.begin(), block.end(),
                                                                 [](std::uint8_t b) { return b; });
                                          *it &= static_cast<std::uint8_t>(*it - 1);
                                        }});
  const FileReport report = VerifyBytes(bytes, KeyKind::kUser, "flip.sst");
  EXPECT_EQ(report.writer, "basho-leveldb");
  EXPECT_GE(report.false_negative_count, 1u);
  EXPECT_EQ(report.status_name(), "error");
}

TEST(BashoTable, AnotherBuildsFilterIsAWarningNamingThatBuild) {
  // A table from a non-x86-64 build: x86-64's hashes deny its keys, the build's answer them all.
  // Verify reads it as that build's, with an `unsupported` warning, never false negatives.
  const std::vector<Stored> keys = Keys(300, true);
  for (const Bloom2Build& build : Bloom2OtherBuilds()) {
    const ByteVector bytes = Build(keys, {.stats = true, .edit_filter = {}, .build = build});
    Result<TableReader> t = TableReader::Open(bytes, "other.sst");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->key_kind(), KeyKind::kUser);  // the kind is decided under any build
    std::size_t denied = 0;
    for (const Stored& k : keys) denied += !*t->MayContain(AsBytes(k.user));
    EXPECT_GT(denied, keys.size() / 2) << build.name;  // x86-64's reading: not this table's
    for (KeyKind kind : {KeyKind::kUser, KeyKind::kAuto}) {
      const FileReport report = VerifyBytes(bytes, kind, "other.sst");
      EXPECT_EQ(report.false_negative_count, 0u) << build.name;
      EXPECT_EQ(report.status_name(), "warning") << build.name;
      ASSERT_EQ(Worst(report), Severity::kWarning);
      bool named = false;
      for (const Finding& f : report.findings) {
        EXPECT_NE(f.kind, finding_kind::kFalseNegative);
        if (f.kind == finding_kind::kUnsupported) {
          named = f.message.find(build.name) != std::string::npos;
        }
      }
      EXPECT_TRUE(named) << build.name;
    }
  }
  // Damage under every build stays an error: a cleared bit in a 32-bit build's table.
  const Bloom2Build& armv7 = Bloom2OtherBuilds().back();
  const ByteVector cleared = Build(keys, {.stats = true,
                                          .edit_filter =
                                              [](ByteVector& block) {
                                                auto it =
                                                    std::find_if(block.begin(), block.end(),
                                                                 [](std::uint8_t b) { return b; });
                                                *it &= static_cast<std::uint8_t>(*it - 1);
                                              },
                                          .build = armv7});
  const FileReport bad = VerifyBytes(cleared, KeyKind::kUser, "cleared.sst");
  EXPECT_EQ(bad.status_name(), "error");
  EXPECT_GE(bad.false_negative_count, 1u);
}

// A user's keys (--keys) probed in another build's table: verify probes them under the build the
// stored keys showed, probe under the build --basho-build names.
TEST(BashoTable, KeysAreProbedUnderTheWritersBuild) {
  const std::vector<Stored> keys = Keys(300, true);
  KeyList given;
  for (std::size_t i = 0; i < keys.size(); i += 3) given.Add(AsBytes(keys[i].user));
  for (const Bloom2Build& build : Bloom2OtherBuilds()) {
    const ByteVector bytes = Build(keys, {.stats = true, .edit_filter = {}, .build = build});
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("basho_keys_" + std::to_string(::getpid()) + ".sst"))
                                 .string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    const std::unique_ptr<KeyStream> probes = KeyListStream(given, "keys.txt");
    // x86-64's hashes deny some of the keys given (the table is another build's) ...
    std::vector<std::uint8_t> x86(given.size());
    const FormatCodec* table = Codec(FormatId::kTable);
    ProbeOptions x86_options;
    x86_options.family.Set(LevelDbOptions{.key_kind = KeyKind::kUser});
    ASSERT_TRUE(table->Probe(bytes, path, given, x86_options, x86).ok());
    EXPECT_LT(std::count(x86.begin(), x86.end(), 1), static_cast<std::ptrdiff_t>(given.size()))
        << build.name;
    // ... verify --keys finds the build from the stored keys and probes the keys under it ...
    const FileReport found = VerifyTable(path, KeyKind::kUser, probes.get(), "db");
    EXPECT_EQ(found.false_negative_count, 0u) << build.name;
    EXPECT_EQ(found.status_name(), "warning") << build.name;
    bool named = false;
    for (const Finding& f : found.findings) {
      if (f.kind == finding_kind::kUnsupported) {
        named = f.message.find("--basho-build " + std::string(build.id)) != std::string::npos &&
                f.message.find("the --keys too") != std::string::npos;
      }
    }
    EXPECT_TRUE(named) << build.name;
    // ... and when the build is named, verify and probe read it so without a word.
    const FileReport forced = VerifyTable(path, KeyKind::kUser, probes.get(), "db",
                                          FilterWriter::kAuto, FindBloom2Build(build.id));
    EXPECT_EQ(forced.false_negative_count, 0u) << build.name;
    EXPECT_EQ(forced.status_name(), "ok") << build.name;
    ProbeOptions named_options;
    named_options.family.Set(
        LevelDbOptions{.key_kind = KeyKind::kUser, .basho_build = std::string(build.id)});
    std::vector<std::uint8_t> answers(given.size());
    ASSERT_TRUE(table->Probe(bytes, path, given, named_options, answers).ok());
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 1),
              static_cast<std::ptrdiff_t>(given.size()))
        << build.name;
    // The x86-64 build named for another build's table: its keys are denied (false negatives).
    const FileReport wrong =
        VerifyTable(path, KeyKind::kUser, nullptr, "db", FilterWriter::kAuto, &kBloom2X86_64);
    EXPECT_GT(wrong.false_negative_count, 0u) << build.name;
    std::filesystem::remove(path);
  }
  EXPECT_EQ(FindBloom2Build("x86-64"), &kBloom2X86_64);
  EXPECT_EQ(FindBloom2Build("sparc"), nullptr);
}

TEST(BashoTable, DamagedBloom2Filters) {
  const std::vector<Stored> keys = Keys(600, true);
  // k byte 0x80 in filter 0: Basho answers "may contain" for every key: not a false negative.
  const auto k_of_filter0 = [](ByteVector& block) {
    // Filter 0 ends where filter 1 starts (offset array entry 1), or at the array.
    std::uint32_t array = 0, end = 0;
    for (int b = 0; b < 4; ++b) array |= std::uint32_t{block[block.size() - 5 + b]} << (8 * b);
    for (int b = 0; b < 4; ++b) end |= std::uint32_t{block[array + 4 + b]} << (8 * b);
    block[end - 1] = 0x80;
  };
  const FileReport any = VerifyBytes(Build(keys, {.stats = true, .edit_filter = k_of_filter0}),
                                     KeyKind::kUser, "k80.sst");
  EXPECT_EQ(any.false_negative_count, 0u);
  EXPECT_NE(any.status_name(), "error");
  // A filter block whose array offset points past its end: a structure error at its offset.
  const FileReport bad = VerifyBytes(
      Build(keys, {.stats = true,
                   .edit_filter = [](ByteVector& block) { block[block.size() - 2] = 0x7f; }}),
      KeyKind::kUser, "layout.sst");
  EXPECT_EQ(bad.status_name(), "error");
  ASSERT_FALSE(bad.findings.empty());
  EXPECT_EQ(bad.findings.front().kind, "structure");
  // Every truncation of the file: no crash, an answer either way.
  const ByteVector whole = Build(keys, {});
  for (std::size_t cut = 0; cut < whole.size(); cut += 97) {
    ByteVector part(whole.begin(), whole.begin() + cut);
    Result<TableReader> t = TableReader::Open(part, "cut.sst");
    if (t.ok()) (void)t->Verify();
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb
