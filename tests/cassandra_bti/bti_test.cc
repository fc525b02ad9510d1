#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/murmur3/inspect.h"
#include "cassandra/verify.h"

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
  std::vector<ByteVector> keys;
  while (keys.size() < n) {
    ByteVector k(1 + rng() % 12);
    for (auto& b : k) b = static_cast<std::uint8_t>(rng() % alphabet);
    keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
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
                    bool with_max, std::size_t n, bool filter_has_all = true,
                    bool bad_hash = false) {
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
  const Murmur3Layout layout = component_prefix.find("bti") != std::string::npos
                                   ? Murmur3Layout::kRawBytes
                                   : Murmur3Layout::kNewOrderLongs;
  Result<ByteVector> filter =
      BuildMurmur3Filter(list, 5, static_cast<std::int32_t>(n / 4 + 1), layout);
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
  const FilterFormat format{FilterKind::kMurmur3, Murmur3Layout::kNewOrderLongs};
  FileReport r = VerifyFilterFile(s.prefix + "Filter.db", format, "ms", nullptr, "");
  EXPECT_EQ(r.keys_checked, 20u);
  EXPECT_TRUE(HasKind(r, kKeySource));
  ASSERT_TRUE(r.fill.has_value());
  EXPECT_EQ(r.fill->sized_keys_from, "index");
  // Without Partitions.db the filter is checked alone (no keys, no error).
  fs::remove(s.prefix + "Partitions.db");
  FileReport alone = VerifyFilterFile(s.prefix + "Filter.db", format, "ms", nullptr, "");
  EXPECT_EQ(alone.keys_checked, 0u);
  EXPECT_FALSE(HasKind(alone, kKeySource));
  fs::remove_all(s.dir);
}

TEST(TrieIndexedSstable, InspectShowsTheKeySource) {
  Sstable s = MakeSstable("inspect", "mt-7-big-", ChunkCompressor::kDeflate, false, 12);
  std::ifstream in(s.prefix + "Filter.db", std::ios::binary);
  const ByteVector filter((std::istreambuf_iterator<char>(in)), {});
  Result<Document> doc =
      InspectMurmur3Filter(filter, s.prefix + "Filter.db", Murmur3Layout::kNewOrderLongs);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  const Document& source = (*doc)["sstable"]["key_source"];
  EXPECT_EQ(source["index"], "Partitions.db");
  EXPECT_EQ(source["keys"], 12);
  EXPECT_EQ(source["keys_read"], 12);
  EXPECT_EQ(source["data_compression"]["compressor"], "Deflate");
  // A Filter.db without Partitions.db beside it: no key source.
  fs::remove(s.prefix + "Partitions.db");
  Result<Document> alone =
      InspectMurmur3Filter(filter, s.prefix + "Filter.db", Murmur3Layout::kNewOrderLongs);
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

}  // namespace
}  // namespace bloomcodec::cassandra::bti
