#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/page_window.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/murmur3/inspect.h"
#include "cassandra/verify.h"
#include "codec/parallel.h"

namespace bloomcodec::cassandra::bti {
namespace {

namespace fs = std::filesystem;

ByteVector Bytes(std::string_view s) { return ByteVector(s.begin(), s.end()); }

std::size_t Lcp(const ByteVector& a, const ByteVector& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// Sorted distinct random keys and their shortest unique prefixes (as the partition index writer
// keeps them).
struct Keys {
  std::vector<ByteVector> keys;
  std::vector<PartitionEntry> entries;
};
Keys RandomKeys(std::mt19937& rng, std::size_t n, int alphabet) {
  std::set<ByteVector> distinct;  // sorted and without repeats as each key is drawn
  while (distinct.size() < n) {
    ByteVector k(1 + rng() % 12);
    for (auto& b : k) b = static_cast<std::uint8_t>(rng() % alphabet);
    distinct.insert(std::move(k));
  }
  const std::vector<ByteVector> keys(distinct.begin(), distinct.end());
  Keys out;
  out.keys = keys;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::size_t len = 0;
    if (i > 0) len = std::max(len, Lcp(keys[i - 1], keys[i]));
    if (i + 1 < keys.size()) len = std::max(len, Lcp(keys[i], keys[i + 1]));
    len = std::min(len + 1, keys[i].size());
    PartitionEntry e;
    e.prefix.assign(keys[i].begin(), keys[i].begin() + len);
    if (rng() % 2) e.hash = static_cast<std::uint8_t>(rng());
    e.position = static_cast<std::int64_t>(rng() % 5 == 0 ? rng() % 100000 : ~(rng() % 1000000));
    out.entries.push_back(e);
  }
  // A shorter key that is a prefix of the next has its payload on an inner node: keep entries
  // in prefix order (they are, since the keys are sorted).
  return out;
}

void ExpectSame(const PartitionsDb& db, const std::vector<PartitionEntry>& entries) {
  ASSERT_EQ(db.payloads.size(), entries.size());
  EXPECT_EQ(db.key_count, entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(db.payloads[i].prefix, entries[i].prefix) << i;
    EXPECT_EQ(db.payloads[i].hash, entries[i].hash) << i;
    EXPECT_EQ(db.payloads[i].position, entries[i].position) << i;
  }
}

TEST(PartitionsDb, RoundTripsEveryShapeAndWidth) {
  std::mt19937 rng(7);
  using Shape = TrieWriteOptions::Shape;
  for (Shape shape : {Shape::kSmallest, Shape::kSparse, Shape::kDense}) {
    for (int bits : {0, 8, 12, 16, 24, 32, 40, 64}) {
      for (int alphabet : {3, 40, 256}) {
        const Keys k = RandomKeys(rng, 1 + rng() % 60, alphabet);
        TrieWriteOptions o;
        o.shape = shape;
        o.min_pointer_bits = bits;
        Result<ByteVector> file = WritePartitionsDb(k.entries, k.keys.front(), k.keys.back(), o);
        ASSERT_TRUE(file.ok()) << file.status().ToString();
        Result<PartitionsDb> db = ReadPartitionsDb(*file, "Partitions.db", true);
        ASSERT_TRUE(db.ok()) << db.status().ToString();
        ExpectSame(*db, k.entries);
        EXPECT_EQ(db->first_key, k.keys.front());
        EXPECT_EQ(db->last_key, k.keys.back());
      }
    }
  }
}

TEST(PartitionsDb, LongDistancesNeedWiderPointers) {
  std::mt19937 rng(11);
  const Keys k = RandomKeys(rng, 40, 256);
  for (std::uint32_t gap : {300u, 5000u, 70000u}) {
    TrieWriteOptions o;
    o.gap_bytes = gap;
    Result<ByteVector> file = WritePartitionsDb(k.entries, k.keys.front(), k.keys.back(), o);
    ASSERT_TRUE(file.ok());
    Result<PartitionsDb> db = ReadPartitionsDb(*file, "Partitions.db", true);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ExpectSame(*db, k.entries);
    // The root's type grows with the distance to its first child.
    const int type = (*file)[db->root] >> 4;
    if (gap == 70000u) {
      EXPECT_TRUE(type == 8 || type == 12) << type;  // 24-bit pointers
    }
    if (gap == 300u) {
      EXPECT_TRUE(type == 6 || type == 7 || type == 10 || type == 11) << type;
    }
  }
}

// Root type per (shape, pointer width) for a node of several children: every type is written
// and read.
TEST(PartitionsDb, WritesEveryNodeType) {
  std::vector<PartitionEntry> entries;
  for (int b : {10, 12, 13, 20})
    entries.push_back({ByteVector{static_cast<std::uint8_t>(b)}, {}, ~b});
  const std::vector<PartitionEntry> single = {{Bytes("abc"), std::uint8_t{5}, -3}};
  using Shape = TrieWriteOptions::Shape;
  struct Case {
    Shape shape;
    int bits;
    const std::vector<PartitionEntry>* entries;
    int root_type;
  };
  const std::vector<Case> cases = {
      {Shape::kSparse, 8, &entries, 5},   {Shape::kSparse, 12, &entries, 6},
      {Shape::kSparse, 16, &entries, 7},  {Shape::kSparse, 24, &entries, 8},
      {Shape::kSparse, 40, &entries, 9},  {Shape::kDense, 12, &entries, 10},
      {Shape::kDense, 16, &entries, 11},  {Shape::kDense, 24, &entries, 12},
      {Shape::kDense, 32, &entries, 13},  {Shape::kDense, 40, &entries, 14},
      {Shape::kDense, 64, &entries, 15},  {Shape::kSmallest, 0, &single, 1},
      {Shape::kSmallest, 8, &single, 2},  {Shape::kSmallest, 12, &single, 3},
      {Shape::kSmallest, 16, &single, 4},
  };
  std::vector<bool> seen(16, false);
  for (const Case& c : cases) {
    TrieWriteOptions o;
    o.shape = c.shape;
    o.min_pointer_bits = c.bits;
    Result<ByteVector> file = WritePartitionsDb(*c.entries, Bytes("a"), Bytes("z"), o);
    ASSERT_TRUE(file.ok());
    Result<PartitionsDb> db = ReadPartitionsDb(*file, "Partitions.db", true);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ExpectSame(*db, *c.entries);
    EXPECT_EQ((*file)[db->root] >> 4, c.root_type) << c.bits;
    for (const PartitionPayload& p : db->payloads) seen[(*file)[p.node_offset] >> 4] = true;
    seen[c.root_type] = true;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
}

// A hand-made file from the specification: PAYLOAD_ONLY leaves under a SPARSE_8 root.
//   0: 0x01 0x05          leaf, pb 1, position 5 (Rows.db)
//   2: 0x08 0x77 0xFE     leaf, pb 8: hash 0x77, 1-byte position -2 (Data.db 1)
//   5: 0x50 0x02 'a' 'b' 0x05 0x03    SPARSE_8: 'a' -> 0, 'b' -> 2
//  11: footer
ByteVector HandMade() {
  ByteVector f = {0x01, 0x05, 0x08, 0x77, 0xFE, 0x50, 0x02, 'a', 'b', 0x05, 0x03};
  for (std::string_view key : {"a", "b"}) {
    f.push_back(0);
    f.push_back(1);
    f.push_back(static_cast<std::uint8_t>(key[0]));
  }
  auto put64 = [&](std::uint64_t v) {
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put64(11);
  put64(2);
  put64(5);
  return f;
}

TEST(PartitionsDb, ReadsAHandMadeTrie) {
  Result<PartitionsDb> db = ReadPartitionsDb(HandMade(), "Partitions.db", true);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->payloads.size(), 2u);
  EXPECT_EQ(db->payloads[0].prefix, Bytes("a"));
  EXPECT_EQ(db->payloads[0].position, 5);
  EXPECT_FALSE(db->payloads[0].hash.has_value());
  EXPECT_EQ(db->payloads[1].prefix, Bytes("b"));
  EXPECT_EQ(db->payloads[1].position, -2);
  EXPECT_EQ(db->payloads[1].hash, std::uint8_t{0x77});
  EXPECT_EQ(db->root, 5u);
  // verify's reading keeps no paths, the same payloads.
  Result<PartitionsDb> bare = ReadPartitionsDb(HandMade(), "Partitions.db");
  ASSERT_TRUE(bare.ok());
  ASSERT_EQ(bare->payloads.size(), 2u);
  EXPECT_TRUE(bare->payloads[1].prefix.empty());
  EXPECT_EQ(bare->payloads[1].position, -2);
}

void ExpectCorruptAt(const ByteVector& file, std::uint64_t offset, std::string_view words) {
  Result<PartitionsDb> db = ReadPartitionsDb(file, "P.db");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(db.status().offset(), offset) << db.status().ToString();
  EXPECT_NE(db.status().ToString().find("P.db"), std::string::npos);
  EXPECT_NE(db.status().ToString().find(words), std::string::npos) << db.status().ToString();
}

TEST(PartitionsDb, DamageIsFoundWithItsOffset) {
  ByteVector f = HandMade();
  // Truncated: the footer's longs are not where the end says.
  ByteVector cut(f.begin(), f.end() - 5);
  EXPECT_FALSE(ReadPartitionsDb(cut, "P.db").ok());
  ByteVector tiny(f.begin(), f.begin() + 10);
  ExpectCorruptAt(tiny, 0, "footer");
  // A child pointer further back than the file's start.
  ByteVector far = f;
  far[9] = 0x09;
  ExpectCorruptAt(far, 9, "child pointer");
  // A zero distance (a node pointing at itself).
  ByteVector self = f;
  self[10] = 0;
  ExpectCorruptAt(self, 10, "child pointer");
  // Transitions out of order.
  ByteVector order = f;
  order[8] = 'a';
  ExpectCorruptAt(order, 8, "ascending");
  // Both transitions to one node: not a tree.
  ByteVector twice = f;
  twice[10] = 0x05;
  ExpectCorruptAt(twice, 0, "reached twice");
  // A leaf without payload.
  ByteVector bare = f;
  bare[0] = 0x00;
  ExpectCorruptAt(bare, 0, "payload");
  // A node type whose size runs past the trie (a DENSE_LONG header on the root).
  ByteVector big = f;
  big[5] = 0xF0;
  ExpectCorruptAt(big, 5, "DENSE_LONG");
  // Root and key count outside what the file can hold.
  ByteVector root = f;
  root[root.size() - 1] = 40;
  ExpectCorruptAt(root, root.size() - 8, "root");
  ByteVector count = f;
  count[count.size() - 9] = 3;
  ExpectCorruptAt(count, count.size() - 16, "key count");
  // A payload running past the trie's end (pb 15 on the last node... the root is last).
  ByteVector payload = f;
  payload[5] = 0x5F;
  ExpectCorruptAt(payload, 5, "payload");
}

TEST(CompressedData, EveryCompressorAcrossChunks) {
  std::mt19937 rng(3);
  ByteVector data(5000);
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<std::uint8_t>(i % 97 < 50 ? 'x' : rng());
  }
  for (ChunkCompressor c : {ChunkCompressor::kLz4, ChunkCompressor::kSnappy,
                            ChunkCompressor::kDeflate, ChunkCompressor::kZstd}) {
    for (bool with_max : {false, true}) {
      Result<CompressedData> w = WriteCompressedData(data, c, 256, with_max);
      ASSERT_TRUE(w.ok());
      Result<CompressionInfo> info =
          ReadCompressionInfo(w->compression_info, "CompressionInfo.db", with_max);
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      EXPECT_EQ(info->compressor, c);
      EXPECT_EQ(info->data_length, data.size());
      EXPECT_EQ(info->chunk_offsets.size(), (data.size() + 255) / 256);
      EXPECT_EQ(info->max_compressed_length.has_value(), with_max);
      // The other layout is recognised too.
      Result<CompressionInfo> other =
          ReadCompressionInfo(w->compression_info, "CompressionInfo.db", !with_max);
      ASSERT_TRUE(other.ok());
      EXPECT_EQ(other->max_compressed_length.has_value(), with_max);
      DataReader reader(w->data_db, "Data.db", &*info);
      for (std::uint64_t at : {0ull, 250ull, 255ull, 256ull, 1000ull, 4990ull}) {
        Result<ByteVector> got = reader.Read(at, 10);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_TRUE(std::equal(got->begin(), got->end(), data.begin() + at));
      }
      EXPECT_FALSE(reader.Read(4995, 10).ok());
    }
  }
}

TEST(CompressedData, ChunksThatDoNotCompressAreStoredRaw) {
  std::mt19937 rng(5);
  ByteVector data(1024);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  Result<CompressedData> w = WriteCompressedData(data, ChunkCompressor::kLz4, 512, true, 400);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->data_db.size(), 2 * (512 + 4));
  Result<CompressionInfo> info = ReadCompressionInfo(w->compression_info, "CI", true);
  ASSERT_TRUE(info.ok());
  DataReader reader(w->data_db, "Data.db", &*info);
  Result<ByteVector> all = reader.Read(0, 1024);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, data);
}

TEST(CompressedData, DamageIsFoundWithItsOffset) {
  ByteVector data(600, 'k');
  Result<CompressedData> w = WriteCompressedData(data, ChunkCompressor::kDeflate, 256, true);
  ASSERT_TRUE(w.ok());
  Result<CompressionInfo> info = ReadCompressionInfo(w->compression_info, "CI", true);
  ASSERT_TRUE(info.ok());
  // A flipped byte in chunk 1: its CRC no longer matches, reported at the checksum.
  ByteVector flipped = w->data_db;
  const std::uint64_t chunk1 = info->chunk_offsets[1], chunk2 = info->chunk_offsets[2];
  flipped[chunk1 + 2] ^= 0x40;
  DataReader bad(flipped, "Data.db", &*info);
  EXPECT_TRUE(bad.Read(0, 10).ok());
  Result<ByteVector> r = bad.Read(300, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), chunk2 - 4);
  EXPECT_NE(r.status().ToString().find("checksum"), std::string::npos);
  // Data.db cut short: the last chunk is outside the file.
  ByteVector cut(w->data_db.begin(), w->data_db.begin() + chunk2 + 2);
  DataReader short_reader(cut, "Data.db", &*info);
  Result<ByteVector> s = short_reader.Read(590, 4);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().offset(), chunk2);
  // CompressionInfo.db: a chunk count the file does not hold; offsets that do not increase.
  ByteVector ci = w->compression_info;
  const std::size_t count_at = ci.size() - 3 * 8 - 4;
  ci[count_at + 3] = 5;
  Result<CompressionInfo> c1 = ReadCompressionInfo(ci, "CI", true);
  ASSERT_FALSE(c1.ok());
  EXPECT_EQ(c1.status().offset(), count_at);
  ByteVector dec = w->compression_info;
  dec[dec.size() - 1] = 0;  // the third offset below the second
  dec[dec.size() - 2] = 0;
  Result<CompressionInfo> c2 = ReadCompressionInfo(dec, "CI", true);
  ASSERT_FALSE(c2.ok());
  EXPECT_EQ(c2.status().offset(), dec.size() - 8);
  ByteVector unknown = w->compression_info;
  unknown[2] = 'X';
  EXPECT_FALSE(ReadCompressionInfo(unknown, "CI", true).ok());
  // A chunk that decompresses to less than its length.
  CompressionInfo lying = *info;
  lying.data_length = 700;
  lying.chunk_offsets.pop_back();
  lying.chunk_offsets.push_back(chunk2);
  DataReader liar(w->data_db, "Data.db", &lying);
  EXPECT_FALSE(liar.Read(650, 4).ok());
  // A chunk offset near 2^64 (found by the fuzzer: begin + 4 wrapped around): outside the file.
  CompressionInfo huge = *info;
  huge.chunk_offsets = {0, ~std::uint64_t{0} - 1, ~std::uint64_t{0}};
  DataReader wrapped(w->data_db, "Data.db", &huge);
  Result<ByteVector> far = wrapped.Read(300, 4);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().offset(), w->data_db.size());
}

// A whole trie-indexed sstable: keys in Data.db (compressed) and Rows.db, the filter built from
// them; verify reads every key through Partitions.db.
struct Sstable {
  fs::path dir;
  std::string prefix;
  std::vector<ByteVector> keys;
};

void WriteFile(const fs::path& p, ByteSpan b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

Sstable MakeSstable(const std::string& name, const std::string& component_prefix, ChunkCompressor c,
                    bool with_max, std::size_t n, bool filter_has_all = true, bool bad_hash = false,
                    std::optional<Era> filter_era = std::nullopt) {
  std::mt19937 rng(static_cast<unsigned>(n));
  Sstable s;
  s.dir = fs::temp_directory_path() / ("bloomcodec-bti-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(s.dir);
  fs::create_directories(s.dir / "ks" / "t-0123456789abcdef0123456789abcdef");
  const fs::path table = s.dir / "ks" / "t-0123456789abcdef0123456789abcdef";
  s.prefix = (table / component_prefix).string();
  Keys k = RandomKeys(rng, n, 256);
  s.keys = k.keys;
  ByteVector data, rows;
  for (std::size_t i = 0; i < k.keys.size(); ++i) {
    // The hash byte as Cassandra writes it: the low byte of the key's Murmur3 h1; a bad one on
    // request.
    if (k.entries[i].hash) {
      k.entries[i].hash =
          static_cast<std::uint8_t>(CassandraMurmur3(k.keys[i]).h1 + (bad_hash ? 1 : 0));
    }
    ByteVector& out = i % 3 == 1 ? rows : data;
    k.entries[i].position =
        i % 3 == 1 ? static_cast<std::int64_t>(out.size()) : ~static_cast<std::int64_t>(out.size());
    out.push_back(static_cast<std::uint8_t>(k.keys[i].size() >> 8));
    out.push_back(static_cast<std::uint8_t>(k.keys[i].size()));
    out.insert(out.end(), k.keys[i].begin(), k.keys[i].end());
    out.insert(out.end(), 20 + rng() % 200, static_cast<std::uint8_t>(rng()));
  }
  Result<ByteVector> trie = WritePartitionsDb(k.entries, k.keys.front(), k.keys.back());
  EXPECT_TRUE(trie.ok());
  WriteFile(s.prefix + "Partitions.db", *trie);
  WriteFile(s.prefix + "Rows.db", rows);
  Result<CompressedData> w = WriteCompressedData(data, c, 1024, with_max);
  EXPECT_TRUE(w.ok());
  WriteFile(s.prefix + "Data.db", w->data_db);
  WriteFile(s.prefix + "CompressionInfo.db", w->compression_info);
  KeyList list;
  for (std::size_t i = 0; i < k.keys.size(); ++i) {
    if (filter_has_all || i != 3) list.Add(k.keys[i]);
  }
  const Era era = filter_era                                          ? *filter_era
                  : component_prefix.find("bti") != std::string::npos ? Era::kV40
                                                                      : Era::kV30;
  Result<ByteVector> filter =
      BuildMurmur3Filter(list, 5, static_cast<std::int32_t>(n / 4 + 1), era);
  EXPECT_TRUE(filter.ok());
  WriteFile(s.prefix + "Filter.db", *filter);
  return s;
}

bool HasKind(const FileReport& r, std::string_view kind) {
  for (const Finding& f : r.findings) {
    if (f.kind == kind) return true;
  }
  return false;
}

TEST(TrieIndexedSstable, VerifyChecksEveryKey) {
  struct Case {
    std::string prefix;
    ChunkCompressor c;
    bool with_max;
  };
  for (const Case& c : {Case{"da-1-bti-", ChunkCompressor::kLz4, true},
                        Case{"ms-5-big-", ChunkCompressor::kSnappy, false},
                        Case{"mt-5-big-", ChunkCompressor::kZstd, false},
                        Case{"da-2-bti-", ChunkCompressor::kDeflate, true}}) {
    Sstable s = MakeSstable(c.prefix.substr(0, 2), c.prefix, c.c, c.with_max, 50);
    Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
    ASSERT_TRUE(found.ok());
    ASSERT_EQ(found->size(), 1u);
    FileReport r = VerifySstable((*found)[0]);
    EXPECT_EQ(r.keys_checked, s.keys.size()) << c.prefix;
    EXPECT_EQ(r.false_negative_count, 0u);
    EXPECT_FALSE(HasKind(r, finding_kind::kIndex)) << c.prefix;
    EXPECT_FALSE(HasKind(r, finding_kind::kMissingIndex));
    EXPECT_TRUE(HasKind(r, kKeySource));
    const Document doc = DescribeTrieIndex(
        s.prefix, c.prefix.substr(0, 2), c.prefix.find("bti") != std::string::npos ? "bti" : "big");
    EXPECT_EQ(doc["keys"], 50);
    EXPECT_EQ(doc["keys_read"], 50);
    EXPECT_EQ(doc["through_rows_db"], 17);  // keys 1, 4, ..., 49
    EXPECT_EQ(doc["data_compression"]["compressor"], std::string(CompressorName(c.c)));
    EXPECT_EQ(doc["data_compression"]["chunk_length"], 1024);
    EXPECT_FALSE(doc.contains("problem"));
    fs::remove_all(s.dir);
  }
}

TEST(TrieIndexedSstable, AFilterGivenAloneFindsItsPartitionsDb) {
  Sstable s = MakeSstable("alone", "ms-3-big-", ChunkCompressor::kSnappy, false, 20);
  FileReport r = VerifyFilterFile(s.prefix + "Filter.db", Era::kV30, "ms", nullptr, "");
  EXPECT_EQ(r.keys_checked, 20u);
  EXPECT_TRUE(HasKind(r, kKeySource));
  ASSERT_TRUE(r.fill.has_value());
  EXPECT_EQ(r.fill->sized_keys_from, "index");
  // Without Partitions.db the filter is checked alone (no keys, no error).
  fs::remove(s.prefix + "Partitions.db");
  FileReport alone = VerifyFilterFile(s.prefix + "Filter.db", Era::kV30, "ms", nullptr, "");
  EXPECT_EQ(alone.keys_checked, 0u);
  EXPECT_FALSE(HasKind(alone, kKeySource));
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, InspectShowsTheKeySource) {
  Sstable s = MakeSstable("inspect", "mt-7-big-", ChunkCompressor::kDeflate, false, 12);
  std::ifstream in(s.prefix + "Filter.db", std::ios::binary);
  const ByteVector filter((std::istreambuf_iterator<char>(in)), {});
  Result<Document> doc = InspectMurmur3Filter(filter, s.prefix + "Filter.db", Era::kV30);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  const Document& source = (*doc)["sstable"]["key_source"];
  EXPECT_EQ(source["index"], "Partitions.db");
  EXPECT_EQ(source["keys"], 12);
  EXPECT_EQ(source["keys_read"], 12);
  EXPECT_EQ(source["data_compression"]["compressor"], "Deflate");
  // A Filter.db without Partitions.db beside it: no key source.
  fs::remove(s.prefix + "Partitions.db");
  Result<Document> alone = InspectMurmur3Filter(filter, s.prefix + "Filter.db", Era::kV30);
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE((*alone)["sstable"].contains("key_source"));
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, ThousandsOfKeysAcrossHundredsOfChunks) {
  Sstable s = MakeSstable("many", "da-9-bti-", ChunkCompressor::kLz4, true, 3000);
  Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
  ASSERT_TRUE(found.ok() && found->size() == 1);
  FileReport r = VerifySstable((*found)[0]);
  EXPECT_EQ(r.keys_checked, 3000u);
  EXPECT_EQ(r.false_negative_count, 0u);
  EXPECT_FALSE(HasKind(r, finding_kind::kIndex));
  const Document doc = DescribeTrieIndex(s.prefix, "da", "bti");
  EXPECT_GT(doc["data_compression"]["chunks"].get<int>(), 100);
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, AMissingKeyIsAFalseNegative) {
  Sstable s = MakeSstable("fn", "da-1-bti-", ChunkCompressor::kLz4, true, 30, false);
  Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
  ASSERT_TRUE(found.ok() && found->size() == 1);
  FileReport r = VerifySstable((*found)[0]);
  EXPECT_EQ(r.keys_checked, 30u);
  EXPECT_GE(r.false_negative_count, 1u);
  // Exactly the keys the filter answers absent one at a time, in key order (verify probes with
  // the hashes the stream made to check the payloads' hash bytes).
  std::ifstream in(s.prefix + "Filter.db", std::ios::binary);
  const ByteVector bytes((std::istreambuf_iterator<char>(in)), {});
  Result<Murmur3Filter> filter = Murmur3Filter::Parse(bytes, "Filter.db", Era::kV40);
  ASSERT_TRUE(filter.ok());
  std::vector<ByteVector> absent;
  for (const ByteVector& key : s.keys) {
    if (!filter->MayContain(key)) absent.push_back(key);
  }
  EXPECT_EQ(r.false_negative_count, absent.size());
  EXPECT_EQ(r.false_negatives, absent);
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, DamagedFilesAreFindingsWithFileAndOffset) {
  Sstable s = MakeSstable("dmg", "da-1-bti-", ChunkCompressor::kLz4, true, 40);
  // A flipped byte in Data.db's first chunk: every key there is unreadable, the Rows.db ones
  // are still checked.
  {
    std::fstream f(s.prefix + "Data.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('\x7f');
  }
  Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
  ASSERT_TRUE(found.ok() && found->size() == 1);
  FileReport r = VerifySstable((*found)[0]);
  ASSERT_TRUE(HasKind(r, finding_kind::kIndex));
  EXPECT_GT(r.keys_checked, 0u);
  EXPECT_LT(r.keys_checked, 40u);
  bool named = false;
  for (const Finding& f : r.findings) {
    if (f.kind == finding_kind::kIndex) {
      named = f.message.find("Data.db") != std::string::npos && f.offset.has_value();
    }
  }
  EXPECT_TRUE(named);
  // Partitions.db missing: the sstable cannot be opened.
  fs::remove(s.prefix + "Partitions.db");
  FileReport gone = VerifySstable((*found)[0]);
  EXPECT_TRUE(HasKind(gone, finding_kind::kMissingIndex));
  // Partitions.db truncated: a finding naming it.
  WriteFile(s.prefix + "Partitions.db", Bytes("short"));
  FileReport cut = VerifySstable((*found)[0]);
  ASSERT_TRUE(HasKind(cut, finding_kind::kIndex));
  EXPECT_NE(cut.findings[0].message.find("Partitions.db"), std::string::npos)
      << cut.findings[0].message;
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, AHashByteThatIsNotTheKeysIsAFinding) {
  Sstable s = MakeSstable("hash", "da-1-bti-", ChunkCompressor::kZstd, true, 30, true, true);
  Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
  ASSERT_TRUE(found.ok() && found->size() == 1);
  FileReport r = VerifySstable((*found)[0]);
  EXPECT_EQ(r.keys_checked, 30u);  // the keys are still checked
  bool named = false;
  for (const Finding& f : r.findings) {
    if (f.kind == finding_kind::kIndex && f.message.find("hash byte") != std::string::npos) {
      named = f.message.find("Partitions.db") != std::string::npos && f.offset.has_value();
    }
  }
  EXPECT_TRUE(named);
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, NoopChunksAreReadAndAnUnknownCompressorIsUnsupported) {
  Sstable s = MakeSstable("noop", "da-1-bti-", ChunkCompressor::kNoop, true, 24);
  Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
  ASSERT_TRUE(found.ok() && found->size() == 1);
  FileReport r = VerifySstable((*found)[0]);
  EXPECT_EQ(r.keys_checked, 24u);
  EXPECT_FALSE(HasKind(r, finding_kind::kIndex));
  // Another class name: a warning, the Data.db keys unchecked, the Rows.db ones checked, no
  // damage reported.
  std::ifstream in(s.prefix + "CompressionInfo.db", std::ios::binary);
  ByteVector info((std::istreambuf_iterator<char>(in)), {});
  in.close();
  const std::string other = "AcmeCompressor";  // as long as NoopCompressor
  std::copy(other.begin(), other.end(), info.begin() + 2);
  WriteFile(s.prefix + "CompressionInfo.db", info);
  FileReport u = VerifySstable((*found)[0]);
  EXPECT_TRUE(HasKind(u, finding_kind::kUnsupported));
  EXPECT_FALSE(HasKind(u, finding_kind::kIndex));
  EXPECT_EQ(u.keys_checked, 8u);  // keys 1, 4, ..., 22 are in Rows.db
  ASSERT_TRUE(u.fill.has_value());
  EXPECT_NE(u.fill->sized_keys_from, "index");
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, DataStaxVersionsReadTheFilterLayoutOfTheirVersion) {
  // datastax/cassandra's BtiVersion: hasOldBfFormat for a* versions only (DSE 6.0 / 6.7: the
  // bit set as big-endian longs, 3.0's layout); b* (DSE 6.8) and c* (its converged Cassandra,
  // HCD, Astra) write the 4.0 layout. Each version's sstable verifies with its own layout; the
  // other layout's bits deny keys, so the version is what decides.
  for (const std::string version : {"aa", "ac", "ad", "ba", "bb", "ca", "cb", "cc"}) {
    const Era own = version[0] == 'a' ? Era::kV30 : Era::kV40;
    const Era other = own == Era::kV30 ? Era::kV40 : Era::kV30;
    for (const Era era : {own, other}) {
      Sstable s = MakeSstable("dse-" + version, version + "-1-bti-", ChunkCompressor::kLz4, true,
                              40, true, false, era);
      Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
      ASSERT_TRUE(found.ok());
      ASSERT_EQ(found->size(), 1u) << version;
      const FileReport r = VerifySstable((*found)[0]);
      EXPECT_EQ(r.keys_checked, s.keys.size()) << version;
      if (era == own) {
        EXPECT_EQ(r.false_negative_count, 0u) << version;
        EXPECT_NE(r.status_name(), "error") << version;
      } else {
        EXPECT_GT(r.false_negative_count, 0u) << version << " read with the other layout";
      }
      fs::remove_all(s.dir);
    }
  }
}

TEST(TrieIndexedSstable, WhichVersionsUseATrie) {
  EXPECT_TRUE(UsesTrieIndex("da", "bti"));
  EXPECT_TRUE(UsesTrieIndex("ms", "big"));
  EXPECT_TRUE(UsesTrieIndex("mt", "big"));
  EXPECT_FALSE(UsesTrieIndex("me", "big"));
  EXPECT_FALSE(UsesTrieIndex("nb", "big"));
  EXPECT_TRUE(HasMaxCompressedLength("da", "bti"));
  EXPECT_TRUE(HasMaxCompressedLength("nb", "big"));
  EXPECT_FALSE(HasMaxCompressedLength("ms", "big"));
  EXPECT_FALSE(HasMaxCompressedLength("me", "big"));
}

// ---- Streaming: the same keys and findings as the whole-file reading, in bounded chunks. ----

std::vector<ByteVector> ToVectors(const KeyList& keys) {
  std::vector<ByteVector> out;
  for (std::size_t i = 0; i < keys.size(); ++i) out.emplace_back(keys[i].begin(), keys[i].end());
  return out;
}

// The keys as the whole-file reading finds them: every payload of ReadPartitionsDb followed
// through its own reader (no streaming code involved).
std::vector<ByteVector> WholeFileKeys(const Sstable& s, bool with_max) {
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return ByteVector((std::istreambuf_iterator<char>(in)), {});
  };
  const ByteVector trie = read(s.prefix + "Partitions.db");
  const ByteVector data = read(s.prefix + "Data.db"), rows = read(s.prefix + "Rows.db");
  const ByteVector ci = read(s.prefix + "CompressionInfo.db");
  Result<PartitionsDb> db = ReadPartitionsDb(trie, "Partitions.db");
  Result<CompressionInfo> info = ReadCompressionInfo(ci, "CI", with_max);
  std::vector<ByteVector> out;
  if (!db.ok() || !info.ok()) return out;
  DataReader d(data, "Data.db", &*info), r(rows, "Rows.db", nullptr);
  for (const PartitionPayload& p : db->payloads) {
    Result<ByteVector> k =
        p.position >= 0 ? r.ReadPartitionKey(p.position) : d.ReadPartitionKey(~p.position);
    if (k.ok()) out.push_back(*k);
  }
  return out;
}

struct Streamed {
  TrieStreamResult result;
  FileReport report;
  std::vector<ByteVector> keys;
  std::vector<std::size_t> chunk_sizes;
};

Streamed StreamKeys(const Sstable& s, std::string_view version, std::string_view format,
                    std::size_t chunk_keys, std::uint64_t window = 4096) {
  Streamed out;
  TrieStreamLimits limits;
  limits.chunk_keys = chunk_keys;
  limits.window_bytes = window;
  out.result =
      StreamTrieIndexKeys(s.prefix, version, format, limits, out.report, [&](const KeyList& chunk) {
        out.chunk_sizes.push_back(chunk.size());
        for (std::size_t i = 0; i < chunk.size(); ++i)
          out.keys.emplace_back(chunk[i].begin(), chunk[i].end());
      });
  if (!out.result.trie_read) {
    // The contract: a damaged trie has no keys; what came before the damage is dropped.
    out.keys.clear();
    out.chunk_sizes.clear();
  }
  return out;
}

void ExpectSameFindings(const FileReport& a, const FileReport& b, const std::string& what) {
  ASSERT_EQ(a.findings.size(), b.findings.size()) << what;
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].severity, b.findings[i].severity) << what << " " << i;
    EXPECT_EQ(a.findings[i].kind, b.findings[i].kind) << what << " " << i;
    EXPECT_EQ(a.findings[i].message, b.findings[i].message) << what << " " << i;
    EXPECT_EQ(a.findings[i].offset, b.findings[i].offset) << what << " " << i;
  }
}

// Streams with chunk sizes 1, 3 and large and checks each against LoadTrieIndexKeys: the same
// keys in the same order, the same findings, chunks never over the limit.
void ExpectStreamMatchesWhole(const Sstable& s, std::string_view version, std::string_view format,
                              const std::string& what) {
  FileReport whole_report;
  std::optional<IndexDb> whole = LoadTrieIndexKeys(s.prefix, version, format, whole_report);
  ASSERT_TRUE(whole.has_value()) << what;
  ASSERT_EQ(whole->positions.size(), whole->keys.size());
  const std::vector<ByteVector> whole_keys = ToVectors(whole->keys);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{1} << 20}) {
    const std::string label = what + " chunk " + std::to_string(chunk);
    Streamed st = StreamKeys(s, version, format, chunk);
    EXPECT_EQ(st.keys, whole_keys) << label;
    EXPECT_EQ(st.result.keys, whole_keys.size()) << label;
    ExpectSameFindings(st.report, whole_report, label);
    std::size_t sum = 0;
    for (std::size_t n : st.chunk_sizes) {
      EXPECT_GE(n, 1u) << label;
      EXPECT_LE(n, chunk) << label;
      sum += n;
    }
    EXPECT_EQ(sum, whole_keys.size()) << label;
    // Chunks are full but for the last one, unless keys in them could not be read.
    const bool damaged = !st.result.complete;
    if (!damaged && chunk < whole_keys.size()) {
      for (std::size_t i = 0; i + 1 < st.chunk_sizes.size(); ++i) {
        EXPECT_EQ(st.chunk_sizes[i], chunk) << label;
      }
    }
  }
}

TEST(TrieKeyStream, StreamedKeysAreTheWholeFilesKeys) {
  struct Case {
    std::string prefix;
    ChunkCompressor c;
    bool with_max;
    std::size_t n;
  };
  std::uint64_t streamed = 0;
  for (const Case& c : {Case{"da-1-bti-", ChunkCompressor::kLz4, true, 50},
                        Case{"ms-5-big-", ChunkCompressor::kSnappy, false, 41},
                        Case{"mt-5-big-", ChunkCompressor::kZstd, false, 7},
                        Case{"da-2-bti-", ChunkCompressor::kDeflate, true, 300},
                        Case{"da-3-bti-", ChunkCompressor::kNoop, true, 1},
                        Case{"da-4-bti-", ChunkCompressor::kLz4, true, 3000}}) {
    Sstable s = MakeSstable("stream-" + c.prefix.substr(0, 4), c.prefix, c.c, c.with_max, c.n);
    const std::string version = c.prefix.substr(0, 2);
    const std::string format = c.prefix.find("bti") != std::string::npos ? "bti" : "big";
    ExpectStreamMatchesWhole(s, version, format, c.prefix);
    Streamed st = StreamKeys(s, version, format, 3);
    // The writer's keys, in key order, as a reading without the stream finds them.
    EXPECT_EQ(st.keys, s.keys) << c.prefix;
    EXPECT_EQ(st.keys, WholeFileKeys(s, c.with_max)) << c.prefix;
    EXPECT_TRUE(st.result.opened && st.result.trie_read && st.result.complete) << c.prefix;
    EXPECT_EQ(st.result.key_count, s.keys.size());
    EXPECT_EQ(st.result.through_rows, (s.keys.size() + 1) / 3);  // keys 1, 4, 7, ...
    ASSERT_EQ(st.report.findings.size(), 1u);
    EXPECT_EQ(st.report.findings[0].kind, kKeySource);
    streamed += st.result.keys;
    fs::remove_all(s.dir);
  }
  EXPECT_EQ(streamed, 50u + 41 + 7 + 300 + 1 + 3000);
}

// Damage in the middle of each file: the stream reports what the whole reading reports, with
// the same counts, and delivers the keys that can be read.
TEST(TrieKeyStream, DamageMidFileGivesTheSameFindings) {
  auto flip = [](const std::string& path, std::uint64_t at) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    const int c = f.get();
    f.seekp(static_cast<std::streamoff>(at));
    f.put(static_cast<char>(c ^ 0x5A));
  };
  // Data.db: a byte in the middle chunk; the keys of that chunk are unreadable.
  {
    Sstable s = MakeSstable("sdmg-data", "da-1-bti-", ChunkCompressor::kLz4, true, 200);
    flip(s.prefix + "Data.db", fs::file_size(s.prefix + "Data.db") / 2);
    ExpectStreamMatchesWhole(s, "da", "bti", "data");
    Streamed st = StreamKeys(s, "da", "bti", 3);
    EXPECT_FALSE(st.result.complete);
    EXPECT_GT(st.result.keys, 0u);
    EXPECT_LT(st.result.keys, 200u);
    ASSERT_FALSE(st.report.findings.empty());
    const Finding& f = st.report.findings[0];
    EXPECT_EQ(f.kind, finding_kind::kIndex);
    EXPECT_TRUE(f.offset.has_value());
    EXPECT_NE(f.message.find("Data.db"), std::string::npos) << f.message;
    const std::string count =
        std::to_string(200 - st.result.keys) + " of 200 keys cannot be read, the others";
    EXPECT_NE(f.message.find(count), std::string::npos) << f.message;
    fs::remove_all(s.dir);
  }
  // Rows.db cut in the middle: the keys past the cut are unreadable.
  {
    Sstable s = MakeSstable("sdmg-rows", "ms-2-big-", ChunkCompressor::kSnappy, false, 90);
    fs::resize_file(s.prefix + "Rows.db", fs::file_size(s.prefix + "Rows.db") / 2);
    ExpectStreamMatchesWhole(s, "ms", "big", "rows");
    Streamed st = StreamKeys(s, "ms", "big", 1);
    EXPECT_FALSE(st.result.complete);
    EXPECT_GT(st.result.keys, 60u);
    EXPECT_LT(st.result.keys, 90u);
    fs::remove_all(s.dir);
  }
  // Partitions.db: a node in the middle of the trie damaged. The one walk meets it after giving
  // the keys before it; the result says the trie is damaged, so they are dropped, as the whole
  // reading reads none, and verify checks no key.
  {
    Sstable s = MakeSstable("sdmg-trie", "da-1-bti-", ChunkCompressor::kZstd, true, 120);
    std::ifstream in(s.prefix + "Partitions.db", std::ios::binary);
    ByteVector trie((std::istreambuf_iterator<char>(in)), {});
    in.close();
    Result<PartitionsFooter> footer = ReadPartitionsFooter(trie, "P");
    ASSERT_TRUE(footer.ok());
    // A node type with no payload and no children (SINGLE_NOPAYLOAD_4 pointing nowhere) on the
    // first payload-only leaf past the middle.
    Result<PartitionsDb> db = ReadPartitionsDb(trie, "P");
    ASSERT_TRUE(db.ok());
    std::uint64_t at = 0;
    for (const PartitionPayload& p : db->payloads) {
      if (p.node_offset > footer->trie_end / 2 && (trie[p.node_offset] >> 4) == 0) {
        at = p.node_offset;
        break;
      }
    }
    ASSERT_GT(at, 0u);
    trie[at] = 0x00;  // PAYLOAD_ONLY without payload: a leaf without payload
    WriteFile(s.prefix + "Partitions.db", trie);
    ExpectStreamMatchesWhole(s, "da", "bti", "trie");
    Streamed st = StreamKeys(s, "da", "bti", 3);
    EXPECT_TRUE(st.keys.empty());
    EXPECT_TRUE(st.chunk_sizes.empty());
    EXPECT_TRUE(st.result.opened);
    EXPECT_FALSE(st.result.trie_read);
    EXPECT_FALSE(st.result.complete);
    ASSERT_EQ(st.report.findings.size(), 1u);
    EXPECT_EQ(st.report.findings[0].offset, at);
    EXPECT_NE(st.report.findings[0].message.find("(no keys are read)"), std::string::npos);
    // The chunks the stream gave before it met the damage (the helper above drops them).
    std::size_t given = 0;
    FileReport scratch;
    TrieStreamLimits three;
    three.chunk_keys = 3;
    const TrieStreamResult raw =
        StreamTrieIndexKeys(s.prefix, "da", "bti", three, scratch,
                            [&](const KeyList& chunk) { given += chunk.size(); });
    EXPECT_FALSE(raw.trie_read);
    EXPECT_EQ(raw.keys, 0u);
    EXPECT_GT(given, 0u);
    Result<std::vector<SstableFiles>> found = FindSstables(s.dir.string());
    ASSERT_TRUE(found.ok() && found->size() == 1);
    (*found)[0].limits.chunk_keys = 3;  // chunks are probed before the damage is met
    const FileReport verified = VerifySstable((*found)[0]);
    EXPECT_EQ(verified.keys_checked, 0u);
    EXPECT_EQ(verified.false_negative_count, 0u);
    EXPECT_TRUE(
        std::any_of(verified.findings.begin(), verified.findings.end(), [&](const Finding& f) {
          return f.offset == at && f.message.find("(no keys are read)") != std::string::npos;
        }));
    fs::remove_all(s.dir);
  }
  // A wrong hash byte on every hashed payload: the keys all come, with one finding and its
  // count.
  {
    Sstable s = MakeSstable("sdmg-hash", "da-1-bti-", ChunkCompressor::kLz4, true, 60, true, true);
    ExpectStreamMatchesWhole(s, "da", "bti", "hash");
    Streamed st = StreamKeys(s, "da", "bti", 3);
    EXPECT_EQ(st.keys, s.keys);
    EXPECT_FALSE(st.result.complete);
    fs::remove_all(s.dir);
  }
  // Partitions.db missing: nothing opened, as LoadTrieIndexKeys' nullopt.
  {
    Sstable s = MakeSstable("sdmg-gone", "da-1-bti-", ChunkCompressor::kLz4, true, 10);
    fs::remove(s.prefix + "Partitions.db");
    Streamed st = StreamKeys(s, "da", "bti", 3);
    EXPECT_FALSE(st.result.opened);
    EXPECT_TRUE(st.keys.empty());
    FileReport r;
    EXPECT_FALSE(LoadTrieIndexKeys(s.prefix, "da", "bti", r).has_value());
    ExpectSameFindings(st.report, r, "gone");
    fs::remove_all(s.dir);
  }
}

// Inside a pool the keys of a chunk are read in slices by several workers: the same keys,
// chunks and findings as one loop.
TEST(TrieKeyStream, SlicesOnAPoolGiveTheSameStream) {
  Sstable s = MakeSstable("pool", "da-5-bti-", ChunkCompressor::kLz4, true, 5000);
  {
    const auto at = static_cast<std::streamoff>(fs::file_size(s.prefix + "Data.db") * 2 / 3);
    std::fstream f(s.prefix + "Data.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(at);
    const int c = f.get();
    f.seekp(at);
    f.put(static_cast<char>(c ^ 0x5A));
  }
  for (std::size_t chunk : {std::size_t{2500}, std::size_t{4096}, std::size_t{1} << 16}) {
    Streamed alone = StreamKeys(s, "da", "bti", chunk);
    Streamed pooled;
    WorkPool pool(3);
    pool.Run(1, [&](std::size_t) {
      ASSERT_NE(CurrentWorkPool(), nullptr);
      pooled = StreamKeys(s, "da", "bti", chunk);
    });
    EXPECT_EQ(pooled.keys, alone.keys) << chunk;
    EXPECT_EQ(pooled.chunk_sizes, alone.chunk_sizes) << chunk;
    EXPECT_EQ(pooled.result.keys, alone.result.keys);
    EXPECT_EQ(pooled.result.through_rows, alone.result.through_rows);
    ExpectSameFindings(pooled.report, alone.report, "pool " + std::to_string(chunk));
    EXPECT_FALSE(pooled.result.complete);
    EXPECT_LT(pooled.result.keys, 5000u);
    EXPECT_GT(pooled.result.keys, 4000u);
  }
  fs::remove_all(s.dir);
}

TEST(TrieKeyStream, TheWalkerGivesReadPartitionsDbsPayloads) {
  std::mt19937 rng(21);
  const Keys k = RandomKeys(rng, 400, 7);
  Result<ByteVector> file = WritePartitionsDb(k.entries, k.keys.front(), k.keys.back());
  ASSERT_TRUE(file.ok());
  Result<PartitionsFooter> footer = ReadPartitionsFooter(*file, "P");
  ASSERT_TRUE(footer.ok());
  for (bool check : {true, false}) {
    PartitionsWalker walk(*file, "P", *footer, check, true);
    std::vector<PartitionEntry> got;
    std::uint64_t touched = 0;
    walk.set_touched([&](std::uint64_t b, std::uint64_t e) {
      EXPECT_LT(b, e);
      EXPECT_LE(e, footer->trie_end);
      touched += e - b;
    });
    PartitionPayload p;
    for (;;) {
      Result<bool> more = walk.Next(p);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      got.push_back({p.prefix, p.hash, p.position});
    }
    ASSERT_EQ(got.size(), k.entries.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].prefix, k.entries[i].prefix);
      EXPECT_EQ(got[i].hash, k.entries[i].hash);
      EXPECT_EQ(got[i].position, k.entries[i].position);
    }
    // Every node is read once: the bytes read add up to the trie (no filler in this one).
    EXPECT_EQ(touched, footer->trie_end);
  }
  // A node reached twice is found only by the checking walk.
  ByteVector twice = HandMade();
  twice[10] = 0x05;
  Result<PartitionsFooter> f2 = ReadPartitionsFooter(twice, "P");
  ASSERT_TRUE(f2.ok());
  PartitionsWalker checking(twice, "P", *f2, true);
  PartitionPayload p;
  ASSERT_TRUE(checking.Next(p).ok());
  Result<bool> second = checking.Next(p);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().ToString().find("reached twice"), std::string::npos);
}

TEST(TrieKeyStream, APageWindowGivesBackPagesAsItGoes) {
  const fs::path path =
      fs::temp_directory_path() / ("bloomcodec-window-" + std::to_string(::getpid()));
  const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  WriteFile(path, ByteVector(64 * page, 1));
  Result<InputFile> in = InputFile::Open(path.string());
  ASSERT_TRUE(in.ok());
  PageWindow window(&*in, 8 * page);
  // Reads of a few bytes each, 4 per page: 64 pages in windows of 8, each given back as the
  // read enters the next window; the last one by Flush.
  for (std::uint64_t at = 0; at < 64 * page; at += page / 4) window.Touch(at, at + 10);
  EXPECT_EQ(window.drops(), 7u);
  window.Flush();
  EXPECT_EQ(window.drops(), 8u);
  window.Flush();
  EXPECT_EQ(window.drops(), 8u);  // nothing left to give back
  // A read across 9 pages is more than a window: given back at once.
  window.Touch(page + 1, 10 * page - 1);
  EXPECT_EQ(window.drops(), 9u);
  // The bytes are still there after their pages were given back.
  EXPECT_EQ(in->bytes()[5 * page], 1);
  // A file in memory: nothing to give back.
  InputFile mem = InputFile::FromBytes(ByteVector(10 * page, 2), "mem");
  PageWindow none(&mem, page);
  for (std::uint64_t at = 0; at < 10 * page; at += page) none.Touch(at, at + page);
  EXPECT_EQ(none.drops(), 0u);
  fs::remove(path);
}

}  // namespace
}  // namespace bloomcodec::cassandra::bti
