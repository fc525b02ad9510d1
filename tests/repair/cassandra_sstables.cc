#include "repair/cassandra_sstables.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/key_encoding.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/era_table.h"
#include "cassandra/index_db.h"
#include "codec/byte_writer.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;
using cassandra::Era;

constexpr const char* kPartitioner = "org.apache.cassandra.dht.Murmur3Partitioner";

std::uint32_t Crc(ByteSpan a, ByteSpan b = {}) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, a.data(), static_cast<uInt>(a.size()));
  if (!b.empty()) c = crc32(c, b.data(), static_cast<uInt>(b.size()));
  return static_cast<std::uint32_t>(c);
}

void PutDouble(ByteWriter& w, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  w.PutBigU64(bits);
}

void PutUtf(ByteWriter& w, std::string_view s) {
  w.PutBigU16(static_cast<std::uint16_t>(s.size()));
  w.PutBytes(AsBytes(s));
}

// 2.0's SSTableMetadata record (ja, jb).
ByteVector LegacyStatistics(double fp) {
  ByteVector out;
  ByteWriter w(out);
  for (int buckets : {3, 2}) {  // row sizes, column counts
    w.PutBigI32(buckets);
    for (int i = 0; i < buckets; ++i) {
      w.PutBigI64(i * 10);
      w.PutBigI64(i + 1);
    }
  }
  w.PutBigI64(-1);  // replay position
  w.PutBigI32(0);
  w.PutBigI64(1441109160009000);  // min, max timestamps
  w.PutBigI64(1441109160276000);
  w.PutBigI32(INT32_MAX);  // max local deletion time
  PutDouble(w, fp);
  PutDouble(w, 0.39);  // compression ratio
  PutUtf(w, kPartitioner);
  w.PutBigI32(0);    // ancestors
  w.PutBigI32(100);  // tombstone histogram: max bins, none
  w.PutBigI32(0);
  w.PutBigI32(0);  // level
  w.PutBigI32(0);  // min, max column names
  w.PutBigI32(0);
  return out;
}

// MetadataSerializer's layout (ka and later): VALIDATION, COMPACTION, STATS (and HEADER from ma).
ByteVector TocStatistics(bool checksums, bool header, double fp) {
  std::vector<ByteVector> parts(header ? 4 : 3);
  ByteWriter v(parts[0]);
  PutUtf(v, kPartitioner);
  PutDouble(v, fp);
  parts[1] = {0, 0, 0, 4, 1, 2, 3, 4, 9, 9};
  parts[2].assign(37, 0x5a);
  if (header) parts[3] = {7, 7, 7, 7, 7, 7};
  const std::size_t extra = checksums ? 4 : 0;
  std::size_t at = 4 + extra + 8 * parts.size() + extra;
  ByteVector out;
  ByteWriter w(out);
  w.PutBigI32(static_cast<std::int32_t>(parts.size()));
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4)));
  const std::size_t entries = out.size();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    w.PutBigI32(static_cast<std::int32_t>(i));
    w.PutBigI32(static_cast<std::int32_t>(at));
    at += parts[i].size() + extra;
  }
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4), ByteSpan(out).subspan(entries)));
  for (const ByteVector& p : parts) {
    w.PutBytes(p);
    if (checksums) w.PutBigU32(Crc(p));
  }
  return out;
}

std::vector<ByteVector> DistinctKeys(std::mt19937& rng, std::size_t n, std::size_t fixed_length) {
  std::set<ByteVector> keys;
  while (keys.size() < n) {
    ByteVector k(fixed_length != 0 ? fixed_length : 4 + rng() % 37);
    for (auto& b : k) b = static_cast<std::uint8_t>(rng());
    keys.insert(std::move(k));
  }
  std::vector<ByteVector> out(keys.begin(), keys.end());
  if (fixed_length == 0) std::shuffle(out.begin(), out.end(), rng);  // Index.db: token order
  return out;
}

ByteVector FilterBytes(const SstableRecipe& r, Era era, const std::vector<ByteVector>& keys) {
  if (r.filter == FilterState::kSaturated16) {
    ByteVector out;
    ByteWriter w(out);
    w.PutBigI32(7);
    w.PutBigI32(1);
    for (int i = 0; i < 8; ++i) w.PutU8(0xff);
    return out;
  }
  auto spec = cassandra::SizeMurmur3Filter(static_cast<std::int64_t>(keys.size()), r.recorded_fp);
  EXPECT_TRUE(spec.ok());
  KeyList list;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (r.filter != FilterState::kMissingKeys || i % 4 != 0) list.Add(keys[i]);
  }
  auto filter = cassandra::BuildMurmur3Filter(list, spec->hash_count, spec->word_count, era);
  EXPECT_TRUE(filter.ok());
  return *filter;
}

// Partitions.db, Rows.db, Data.db and CompressionInfo.db of a trie-indexed sstable. The trie
// holds each key's byte-comparable form (Murmur3 token first, the version's encoding) cut where it
// differs from both neighbours, in form order, as Cassandra's PartitionIndexBuilder writes it.
void WriteTrieIndex(const std::string& prefix, const std::string& version,
                    const std::vector<ByteVector>& keys, bool bti,
                    std::vector<std::string>& components) {
  namespace bti_ns = cassandra::bti;
  const bti_ns::KeyForm form{
      bti_ns::TrieKeyEncoding(version, "bti").value_or(bti_ns::KeyEncoding::kOss50),
      bti_ns::TokenKind::kMurmur3};
  std::vector<ByteVector> forms(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    bti_ns::AppendKeyForm(
        form, bti_ns::Murmur3Token(cassandra::CassandraMurmur3(keys[i]), keys[i].size()), keys[i],
        forms[i]);
  }
  std::vector<std::size_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return forms[a] < forms[b]; });
  const auto differ = [&](std::size_t a, std::size_t b) {  // diffPoint: common prefix + 1
    std::size_t n = 0;
    while (n < forms[a].size() && n < forms[b].size() && forms[a][n] == forms[b][n]) ++n;
    return n + 1;
  };
  std::vector<cassandra::bti::PartitionEntry> entries;
  ByteVector data, rows;
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::size_t i = order[j];
    std::size_t cut = 0;
    if (j > 0) cut = std::max(cut, differ(order[j - 1], i));
    if (j + 1 < order.size()) cut = std::max(cut, differ(i, order[j + 1]));
    cassandra::bti::PartitionEntry e;
    e.prefix.assign(forms[i].begin(),
                    forms[i].begin() + static_cast<std::ptrdiff_t>(std::min(cut, forms[i].size())));
    e.hash = static_cast<std::uint8_t>(cassandra::CassandraMurmur3(keys[i]).h1);
    ByteVector& out = i % 3 == 1 ? rows : data;
    e.position =
        i % 3 == 1 ? static_cast<std::int64_t>(out.size()) : ~static_cast<std::int64_t>(out.size());
    out.push_back(static_cast<std::uint8_t>(keys[i].size() >> 8));
    out.push_back(static_cast<std::uint8_t>(keys[i].size()));
    out.insert(out.end(), keys[i].begin(), keys[i].end());
    out.insert(out.end(), 30, static_cast<std::uint8_t>(i));
    entries.push_back(std::move(e));
  }
  auto trie = cassandra::bti::WritePartitionsDb(entries, keys[order.front()], keys[order.back()]);
  ASSERT_TRUE(trie.ok()) << trie.status().ToString();
  auto compressed =
      cassandra::bti::WriteCompressedData(data, cassandra::bti::ChunkCompressor::kLz4, 1024, bti);
  ASSERT_TRUE(compressed.ok()) << compressed.status().ToString();
  const std::pair<const char*, ByteSpan> files[] = {
      {"Partitions.db", *trie},
      {"Rows.db", rows},
      {"Data.db", compressed->data_db},
      {"CompressionInfo.db", compressed->compression_info}};
  for (const auto& [component, bytes] : files) {
    WriteAll(prefix + component, bytes);
    components.push_back(prefix + component);
  }
}

ByteVector ScyllaDb(bool digests) {
  ByteVector out;
  ByteWriter w(out);
  w.PutBigU32(digests ? 2 : 1);
  w.PutBigU32(6);  // SSTableOrigin: disk_string<u32>
  w.PutBigU32(4 + 8);
  w.PutBigU32(8);
  w.PutBytes(AsBytes(std::string_view("memtable")));
  if (digests) {
    w.PutBigU32(12);  // ComponentsDigests: one (component type, CRC32)
    w.PutBigU32(4 + 8);
    w.PutBigU32(1);
    w.PutBigU32(7);  // Filter
    w.PutBigU32(0x12345678);
    w.PutBigU32(0xabcdef01);  // the set's own digest
  }
  return out;
}

}  // namespace

ByteVector StatisticsFile(const std::string& version, const std::string& format, double fp) {
  if (format != "bti" && version < "ka") return LegacyStatistics(fp);
  const bool checksums = format == "bti" || version >= "na";
  return TocStatistics(checksums, format == "bti" || version >= "ma", fp);
}

MadeSstable MakeSstable(const std::string& root, const SstableRecipe& r) {
  MadeSstable s;
  s.table_dir = (fs::path(root) / "ks" / "t-0123456789abcdef0123456789abcdef").string();
  fs::create_directories(s.table_dir);
  const std::string stem =
      r.format.empty() ? "ks-t-" + r.version + "-1-" : r.version + "-1-" + r.format + "-";
  s.prefix = s.table_dir + "/" + stem;
  const Era era = cassandra::EraForVersion(r.version, r.format);
  const bool trie = r.format == "bti" || r.version == "ms" || r.version == "mt";
  std::mt19937 rng(r.seed);
  s.keys = DistinctKeys(rng, r.keys, trie ? 10 : 0);
  if (trie) {
    WriteTrieIndex(s.prefix, r.version, s.keys, r.format == "bti", s.components);
  } else {
    KeyList list;
    std::vector<std::int64_t> positions;
    for (std::size_t i = 0; i < s.keys.size(); ++i) {
      list.Add(s.keys[i]);
      positions.push_back(static_cast<std::int64_t>(i) * 97);
    }
    auto index =
        cassandra::WriteIndexDb(list, positions, cassandra::IndexEntryFormForVersion(r.version));
    EXPECT_TRUE(index.ok());
    const std::pair<const char*, ByteVector> files[] = {
        {"Index.db", *index}, {"Data.db", ByteVector(500, 0x44)}, {"Summary.db", {1, 2, 3, 4}}};
    for (const auto& [component, bytes] : files) {
      WriteAll(s.prefix + component, bytes);
      s.components.push_back(s.prefix + component);
    }
  }
  std::vector<std::pair<std::string, ByteVector>> more = {
      {"Statistics.db", StatisticsFile(r.version, r.format, r.recorded_fp)},
      {"Digest.crc32", ByteVector{'1', '2', '3', '4', '5'}}};
  if (r.filter != FilterState::kAbsent) more.emplace_back("Filter.db", FilterBytes(r, era, s.keys));
  if (r.scylla_db) more.emplace_back("Scylla.db", ScyllaDb(r.scylla_digests));
  for (const auto& [component, bytes] : more) {
    WriteAll(s.prefix + component, bytes);
    s.components.push_back(s.prefix + component);
  }
  std::string toc;
  for (const std::string& c : s.components) toc += c.substr(s.prefix.size()) + "\n";
  if (r.filter == FilterState::kAbsent) toc += "Filter.db\n";
  WriteAll(s.prefix + "TOC.txt", AsBytes(std::string_view(toc)));
  s.components.push_back(s.prefix + "TOC.txt");
  std::sort(s.components.begin(), s.components.end());
  return s;
}

std::vector<ByteVector> KeysOfOldIndexDb(ByteSpan file) {
  std::vector<ByteVector> keys;
  std::size_t at = 0;
  while (at + 2 <= file.size()) {
    const std::size_t n = (std::size_t{file[at]} << 8) | file[at + 1];
    keys.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(at + 2),
                      file.begin() + static_cast<std::ptrdiff_t>(at + 2 + n));
    at += 2 + n + 8;
  }
  return keys;
}

std::map<std::string, ByteVector> FilesUnder(const std::string& dir) {
  std::map<std::string, ByteVector> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out[fs::relative(e.path(), dir).string()] = ReadAll(e.path().string());
  }
  return out;
}

ByteVector ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return ByteVector(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteAll(const std::string& path, ByteSpan bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

}  // namespace bloomcodec::testing
