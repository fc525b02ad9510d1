// The byte-comparable form of partition keys in Partitions.db per trie-indexed version (DataStax's
// aa .. cc, Apache's da) and the check of the trie's paths against it (key_encoding.h,
// key_paths.h); DSE's encrypted sstables as `unsupported` (encryption.h). The expected bytes are
// the examples of datastax/cassandra's ByteSource documentation and the rules of its
// DecoratedKey, Murmur3Partitioner and ByteOrderedPartitioner (FORMAT.md), written out by hand;
// the sstables are written here by our BTI writer the way PartitionIndexBuilder cuts its keys.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/key_encoding.h"
#include "cassandra/bti/key_paths.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/verify.h"

namespace bloomcodec::cassandra::bti {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMurmur3 = "org.apache.cassandra.dht.Murmur3Partitioner";
constexpr const char* kByteOrdered = "org.apache.cassandra.dht.ByteOrderedPartitioner";

ByteVector Bytes(std::string_view s) { return ByteVector(s.begin(), s.end()); }
ByteVector Hex(std::initializer_list<int> v) { return ByteVector(v.begin(), v.end()); }

ByteVector Form(KeyEncoding e, TokenKind t, std::int64_t token, std::string_view key) {
  ByteVector out;
  AppendKeyForm(KeyForm{e, t}, token, AsBytes(key), out);
  return out;
}

// The key part of a byte-ordered form: the form is 40, escaped token (= key), 40, escaped key,
// terminator, so the escaped key is the part between the second 40 and the terminator.
ByteVector EscapedByteOrdered(KeyEncoding e, std::string_view key) {
  const ByteVector f = Form(e, TokenKind::kByteOrdered, 0, key);
  const std::size_t half = (f.size() - (e == KeyEncoding::kLegacy ? 0 : 1)) / 2;
  return ByteVector(f.begin() + 1, f.begin() + static_cast<std::ptrdiff_t>(half));
}

TEST(KeyEncoding, EscapesAsByteSourceDocumentsIt) {
  using std::string_view_literals::operator""sv;
  for (const KeyEncoding e : {KeyEncoding::kLegacy, KeyEncoding::kOss41, KeyEncoding::kOss50}) {
    const bool legacy = e == KeyEncoding::kLegacy;
    EXPECT_EQ(EscapedByteOrdered(e, "A\0\0B"sv), Hex({0x41, 0x00, 0xFE, 0xFF, 0x42, 0x00}));
    ByteVector a0b0 = Hex({0x41, 0x00, 0xFF, 0x42, 0x00, 0xFE});
    ByteVector a0 = Hex({0x41, 0x00, 0xFE});
    if (legacy) a0b0.push_back(0x00), a0.push_back(0x00);
    EXPECT_EQ(EscapedByteOrdered(e, "A\0B\0"sv), a0b0);
    EXPECT_EQ(EscapedByteOrdered(e, "A\0"sv), a0);
    EXPECT_EQ(EscapedByteOrdered(e, "AB"), Hex({0x41, 0x42, 0x00}));
  }
}

TEST(KeyEncoding, DecoratedKeyFormPerEncodingAndPartitioner) {
  // Murmur3: 40, the token's 8 bytes big-endian with the sign bit flipped, 40, the escaped key,
  // the terminator 38 (none in LEGACY).
  const ByteVector oss = Form(KeyEncoding::kOss41, TokenKind::kMurmur3, 0x0102030405060708, "AB");
  EXPECT_EQ(oss, Hex({0x40, 0x81, 2, 3, 4, 5, 6, 7, 8, 0x40, 0x41, 0x42, 0x00, 0x38}));
  EXPECT_EQ(Form(KeyEncoding::kOss50, TokenKind::kMurmur3, 0x0102030405060708, "AB"), oss);
  EXPECT_EQ(Form(KeyEncoding::kLegacy, TokenKind::kMurmur3, 0x0102030405060708, "AB"),
            ByteVector(oss.begin(), oss.end() - 1));
  EXPECT_EQ(Form(KeyEncoding::kOss41, TokenKind::kMurmur3, -1, "")[1], 0x7F);
  // Byte-ordered: the token is the key, escaped the same way.
  EXPECT_EQ(Form(KeyEncoding::kOss41, TokenKind::kByteOrdered, 0, "AB"),
            Hex({0x40, 0x41, 0x42, 0x00, 0x40, 0x41, 0x42, 0x00, 0x38}));
  // The token: an empty key is Long.MIN_VALUE, a first hash word of MIN_VALUE is MAX_VALUE.
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(Murmur3Token(Murmur3Hash{kMin, 0}, 0), kMin);
  EXPECT_EQ(Murmur3Token(Murmur3Hash{kMin, 0}, 3), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Murmur3Token(Murmur3Hash{42, 7}, 3), 42);
  const ByteVector empty = Form(KeyEncoding::kOss41, TokenKind::kMurmur3, kMin, "");
  EXPECT_EQ(empty, Hex({0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x00, 0x38}));
  // The prefix check makes the form only as far as the path goes.
  EXPECT_TRUE(IsKeyFormPrefix(KeyForm{KeyEncoding::kOss41, TokenKind::kMurmur3}, 0x0102030405060708,
                              AsBytes(std::string_view("AB")), ByteSpan(oss).first(4)));
  EXPECT_FALSE(IsKeyFormPrefix(KeyForm{KeyEncoding::kLegacy, TokenKind::kMurmur3},
                               0x0102030405060708, AsBytes(std::string_view("AB")), oss));
}

TEST(KeyEncoding, VersionsUseTheEncodingOfBtiVersion) {
  for (const char* v : {"aa", "ab", "ac", "ad", "b", "ba", "bb"}) {
    EXPECT_EQ(TrieKeyEncoding(v, "bti"), KeyEncoding::kLegacy) << v;
  }
  for (const char* v : {"ca", "cb", "cc"})
    EXPECT_EQ(TrieKeyEncoding(v, "bti"), KeyEncoding::kOss41);
  EXPECT_EQ(TrieKeyEncoding("da", "bti"), KeyEncoding::kOss50);
  EXPECT_FALSE(TrieKeyEncoding("ms", "big").has_value());
  EXPECT_FALSE(TrieKeyEncoding("mt", "big").has_value());
}

// ---- Whole sstables, written the way DataStax's writer cuts the keys. ----

void WriteFile(const fs::path& p, ByteSpan b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void PutBig(ByteVector& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::uint32_t Crc(ByteSpan b) {
  return static_cast<std::uint32_t>(crc32(0, b.data(), static_cast<uInt>(b.size())));
}

// A BTI Statistics.db (checksummed) of the VALIDATION component alone.
ByteVector Statistics(const std::string& partitioner) {
  ByteVector validation;
  PutBig(validation, partitioner.size(), 2);
  validation.insert(validation.end(), partitioner.begin(), partitioner.end());
  double fp = 0.01;
  std::uint64_t bits;
  std::memcpy(&bits, &fp, sizeof bits);
  PutBig(validation, bits, 8);
  ByteVector out;
  PutBig(out, 1, 4);
  PutBig(out, Crc(out), 4);
  PutBig(out, 0, 4);
  PutBig(out, 4 + 4 + 8 + 4, 4);
  ByteVector toc(out.begin(), out.begin() + 4);
  toc.insert(toc.end(), out.begin() + 8, out.end());
  PutBig(out, Crc(toc), 4);
  out.insert(out.end(), validation.begin(), validation.end());
  PutBig(out, Crc(validation), 4);
  return out;
}

std::size_t DiffPoint(const ByteVector& a, const ByteVector& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n + 1;
}

struct BtiTable {
  fs::path dir;
  std::string prefix;
  std::size_t keys = 0;
};

// An sstable of `keys` whose trie is cut from the forms of `written` (PartitionIndexBuilder: each
// key cut after the point where it differs from both neighbours); Data.db uncompressed. With
// `altered`, the key at that position in key order is written to Data.db changed.
BtiTable WriteTable(const std::string& name, const std::string& version,
                    const std::vector<ByteVector>& keys, KeyForm written,
                    const std::string& partitioner, std::optional<std::size_t> altered = {}) {
  BtiTable t;
  t.dir =
      fs::temp_directory_path() / ("bloomcodec-keyform-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(t.dir);
  const fs::path table = t.dir / "ks" / "t-0123456789abcdef0123456789abcdef";
  fs::create_directories(table);
  t.prefix = (table / (version + "-1-bti-")).string();
  std::vector<ByteVector> forms;
  for (const ByteVector& k : keys) {
    ByteVector f;
    AppendKeyForm(written, Murmur3Token(CassandraMurmur3(k), k.size()), k, f);
    forms.push_back(std::move(f));
  }
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return forms[a] < forms[b]; });
  std::vector<PartitionEntry> entries;
  ByteVector data;
  KeyList in_data;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ByteVector& f = forms[order[i]];
    std::size_t cut = 0;
    if (i > 0) cut = std::max(cut, DiffPoint(forms[order[i - 1]], f));
    if (i + 1 < order.size()) cut = std::max(cut, DiffPoint(f, forms[order[i + 1]]));
    PartitionEntry e;
    e.prefix.assign(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(std::min(cut, f.size())));
    e.position = ~static_cast<std::int64_t>(data.size());
    entries.push_back(std::move(e));
    ByteVector key = keys[order[i]];
    if (altered && *altered == i) key[0] ^= 0x5A;
    PutBig(data, key.size(), 2);
    data.insert(data.end(), key.begin(), key.end());
    data.insert(data.end(), 16, 0xEE);
    in_data.Add(key);
  }
  Result<ByteVector> trie = WritePartitionsDb(entries, in_data[0], in_data[in_data.size() - 1]);
  EXPECT_TRUE(trie.ok()) << trie.status().ToString();
  WriteFile(t.prefix + "Partitions.db", *trie);
  WriteFile(t.prefix + "Data.db", data);
  WriteFile(t.prefix + "Statistics.db", Statistics(partitioner));
  const Era era = version[0] == 'a' ? Era::kV30 : Era::kV40;
  Result<ByteVector> filter =
      BuildMurmur3Filter(in_data, 5, static_cast<std::int32_t>(keys.size() / 4 + 1), era);
  EXPECT_TRUE(filter.ok());
  WriteFile(t.prefix + "Filter.db", *filter);
  t.keys = keys.size();
  return t;
}

FileReport VerifyTable(const BtiTable& t) {
  Result<std::vector<SstableFiles>> found = FindSstables(t.dir.string());
  EXPECT_TRUE(found.ok());
  EXPECT_EQ(found->size(), 1u);
  return VerifySstable((*found)[0]);
}

std::vector<const Finding*> Kind(const FileReport& r, std::string_view kind) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

std::vector<ByteVector> RandomKeys(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::set<ByteVector> keys;
  while (keys.size() < n) {
    ByteVector k(1 + rng() % 10);
    for (auto& b : k) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng());
    keys.insert(k);
  }
  return {keys.begin(), keys.end()};
}

// Byte-ordered keys that end in zeros: the only keys whose cut reaches the end of a form, where
// LEGACY and OSS41 differ (with Murmur3 tokens the cut falls inside the token).
std::vector<ByteVector> ZeroEndedKeys() {
  using std::string_view_literals::operator""sv;
  std::vector<ByteVector> keys;
  for (std::string_view k : {"A"sv, "A\0"sv, "A\0\0"sv, "A\0\0\0"sv, "B\0"sv, "B\0\0"sv, "C"sv}) {
    keys.push_back(Bytes(k));
  }
  return keys;
}

TEST(KeyFormCheck, EachVersionReadsTheFormItsWriterUses) {
  for (const std::string version : {"aa", "ac", "ad", "ba", "bb", "ca", "cb", "cc", "da"}) {
    const KeyEncoding own = *TrieKeyEncoding(version, "bti");
    for (const char* partitioner : {kMurmur3, kByteOrdered}) {
      const TokenKind token =
          partitioner == kMurmur3 ? TokenKind::kMurmur3 : TokenKind::kByteOrdered;
      std::set<ByteVector> distinct;
      for (const ByteVector& k : RandomKeys(60, 7)) distinct.insert(k);
      if (token == TokenKind::kByteOrdered) {
        for (const ByteVector& k : ZeroEndedKeys()) distinct.insert(k);
      }
      const std::vector<ByteVector> keys(distinct.begin(), distinct.end());
      const BtiTable t = WriteTable(version, version, keys, KeyForm{own, token}, partitioner);
      const FileReport r = VerifyTable(t);
      EXPECT_EQ(r.keys_checked, keys.size()) << version;
      EXPECT_TRUE(Kind(r, finding_kind::kIndex).empty()) << version << " " << partitioner;
      EXPECT_TRUE(Kind(r, finding_kind::kUnsupported).empty()) << version << " " << partitioner;
      EXPECT_NE(r.status_name(), "error") << version;
      fs::remove_all(t.dir);
    }
  }
}

TEST(KeyFormCheck, AWriterOfTheOtherEncodingIsUnsupportedNotDamage) {
  // The zero-ended byte-ordered keys are cut where LEGACY and OSS41 differ: written in the other
  // encoding, their paths fit that one and the check says so as a warning.
  for (const std::string version : {"ba", "ca", "da"}) {
    const KeyEncoding own = *TrieKeyEncoding(version, "bti");
    const KeyEncoding other =
        own == KeyEncoding::kLegacy ? KeyEncoding::kOss41 : KeyEncoding::kLegacy;
    const BtiTable t = WriteTable("other-" + version, version, ZeroEndedKeys(),
                                  KeyForm{other, TokenKind::kByteOrdered}, kByteOrdered);
    const FileReport r = VerifyTable(t);
    EXPECT_TRUE(Kind(r, finding_kind::kIndex).empty()) << version;
    const auto u = Kind(r, finding_kind::kUnsupported);
    ASSERT_EQ(u.size(), 1u) << version;
    EXPECT_EQ(u[0]->severity, Severity::kWarning);
    EXPECT_NE(u[0]->message.find("fits the " + std::string(KeyEncodingName(other)) + " form"),
              std::string::npos)
        << u[0]->message;
    EXPECT_EQ(r.keys_checked, ZeroEndedKeys().size());
    fs::remove_all(t.dir);
  }
  // Murmur3 keys are cut inside their tokens, where the encodings agree: the same trie either way.
  const BtiTable t = WriteTable("other-m3", "ba", RandomKeys(60, 3),
                                KeyForm{KeyEncoding::kOss41, TokenKind::kMurmur3}, kMurmur3);
  const FileReport r = VerifyTable(t);
  EXPECT_TRUE(Kind(r, finding_kind::kIndex).empty());
  EXPECT_TRUE(Kind(r, finding_kind::kUnsupported).empty());
  EXPECT_EQ(r.keys_checked, 60u);
  fs::remove_all(t.dir);
}

TEST(KeyFormCheck, APayloadLeadingToAnotherKeyIsAnIndexError) {
  for (const std::string version : {"aa", "bb", "cc", "da"}) {
    const KeyEncoding own = *TrieKeyEncoding(version, "bti");
    const BtiTable t = WriteTable("bad-" + version, version, RandomKeys(40, 11),
                                  KeyForm{own, TokenKind::kMurmur3}, kMurmur3, 17);
    const FileReport r = VerifyTable(t);
    const auto index = Kind(r, finding_kind::kIndex);
    ASSERT_EQ(index.size(), 1u) << version;
    EXPECT_EQ(index[0]->severity, Severity::kError);
    EXPECT_NE(index[0]->message.find("(1 of 40 keys)"), std::string::npos) << index[0]->message;
    EXPECT_NE(index[0]->message.find(std::string(KeyEncodingName(own))), std::string::npos);
    ASSERT_TRUE(index[0]->offset.has_value());
    fs::remove_all(t.dir);
  }
}

TEST(KeyFormCheck, OtherPartitionersAreNotChecked) {
  // RandomPartitioner's tokens are not made here: a trie cut from Murmur3 forms is not judged.
  const BtiTable t = WriteTable("random", "da", RandomKeys(40, 5),
                                KeyForm{KeyEncoding::kOss50, TokenKind::kByteOrdered},
                                "org.apache.cassandra.dht.RandomPartitioner");
  const FileReport r = VerifyTable(t);
  EXPECT_TRUE(Kind(r, finding_kind::kIndex).empty());
  EXPECT_TRUE(Kind(r, finding_kind::kUnsupported).empty());
  EXPECT_EQ(r.keys_checked, 40u);
  fs::remove_all(t.dir);
}

// ---- DSE's encrypted sstables. ----

// CompressionInfo.db naming an encrypting class (what DSE writes for a table with encryption in
// its compression options), chunk layout of one chunk.
ByteVector EncryptedCompressionInfo() {
  ByteVector out;
  const std::string name = "org.apache.cassandra.io.compress.EncryptingLZ4Compressor";
  PutBig(out, name.size(), 2);
  out.insert(out.end(), name.begin(), name.end());
  PutBig(out, 2, 4);
  for (std::string s : {"cipher_algorithm", "AES/CBC/PKCS5Padding", "secret_key_strength", "128"}) {
    PutBig(out, s.size(), 2);
    out.insert(out.end(), s.begin(), s.end());
  }
  PutBig(out, 65536, 4);  // chunk length
  PutBig(out, 65536, 4);  // max compressed length
  PutBig(out, 100, 8);    // data length
  PutBig(out, 1, 4);
  PutBig(out, 0, 8);
  return out;
}

TEST(EncryptedSstable, EncryptedIndexesAreUnsupportedNotDamage) {
  for (const std::string version : {"aa", "ba", "bb", "cc"}) {
    BtiTable t =
        WriteTable("enc-" + version, version, RandomKeys(30, 9),
                   KeyForm{*TrieKeyEncoding(version, "bti"), TokenKind::kMurmur3}, kMurmur3);
    WriteFile(t.prefix + "CompressionInfo.db", EncryptedCompressionInfo());
    // Ciphertext: 4 KiB chunks that mean nothing to a reader without the key.
    std::mt19937 rng(1);
    ByteVector noise(8192);
    for (auto& b : noise) b = static_cast<std::uint8_t>(rng());
    WriteFile(t.prefix + "Data.db", noise);
    const bool indexes = version[0] != 'a';
    if (indexes) WriteFile(t.prefix + "Partitions.db", noise);
    const FileReport r = VerifyTable(t);
    EXPECT_NE(r.status_name(), "error") << version;
    EXPECT_TRUE(Kind(r, finding_kind::kIndex).empty()) << version;
    const auto u = Kind(r, finding_kind::kUnsupported);
    ASSERT_EQ(u.size(), 1u) << version;
    EXPECT_NE(u[0]->message.find("encrypted (DSE transparent data encryption, "
                                 "org.apache.cassandra.io.compress.EncryptingLZ4Compressor, "
                                 "cipher AES/CBC/PKCS5Padding)"),
              std::string::npos)
        << u[0]->message;
    EXPECT_NE(u[0]->message.find(indexes ? "Partitions.db, Rows.db and Data.db" : ": Data.db"),
              std::string::npos)
        << u[0]->message;
    EXPECT_NE(u[0]->message.find("without encryption"), std::string::npos);
    EXPECT_EQ(r.keys_checked, 0u);  // every key here is in Data.db
    fs::remove_all(t.dir);
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra::bti
