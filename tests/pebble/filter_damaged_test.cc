// Damaged Pebble filters: whatever the bytes, the readers either read them as Pebble would (and
// answer without reading outside them) or refuse them with the file, the byte offset of the
// field at fault and what was expected there; they refuse exactly where Pebble's reader panics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "leveldb/random_keys.h"
#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"
#include "pebble/inspect.h"

namespace bloomcodec::pebble {
namespace {

using ::bloomcodec::testing::RandomKeys;

KeyList Keys(std::uint64_t seed, std::size_t n) {
  KeyList keys;
  for (const std::string& k : RandomKeys(seed, n)) keys.Add(k);
  return keys;
}

void PutLe32(ByteVector& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint32_t ReadCount(const ByteVector& f) {
  const std::size_t at = f.size() - 6;
  return std::uint32_t{f[at]} | (std::uint32_t{f[at + 1]} << 8) | (std::uint32_t{f[at + 2]} << 16) |
         (std::uint32_t{f[at + 3]} << 24);
}

// A refusal names the file and an offset inside it, and is a corruption.
void ExpectRefusedAt(const Status& s, std::uint64_t offset, std::string_view words) {
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_EQ(s.file(), "cut.bin") << s.ToString();
  ASSERT_TRUE(s.offset().has_value()) << s.ToString();
  EXPECT_EQ(*s.offset(), offset) << s.ToString();
  EXPECT_NE(s.ToString().find(words), std::string::npos) << s.ToString();
}

// Probing every key of `keys` through every path must agree, whatever the filter.
template <typename Reader>
void ProbeAll(const Reader& r, const KeyList& keys) {
  std::vector<std::uint8_t> answers(keys.size());
  r.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i)
    ASSERT_EQ(answers[i], r.MayContain(keys[i]) ? 1 : 0);
}

TEST(PebbleFilterDamaged, BloomEveryCut) {
  const KeyList keys = Keys(1, 300);
  const ByteVector f = BuildBloom(BloomPolicy{}, keys)->value();
  for (std::size_t len = 0; len <= f.size(); ++len) {
    const ByteSpan cut(f.data(), len);
    auto r = BloomReader::Parse(cut, "cut.bin");
    if (len <= 5) {
      ASSERT_TRUE(r.ok() && r->empty()) << len;
    } else if (!r.ok()) {
      // The trailer is now four bytes of bits: refused at its line count unless it happens to
      // give 64-byte lines.
      ExpectRefusedAt(r.status(), len - 4, "line count");
      continue;
    }
    ProbeAll(*r, keys);
    ASSERT_LE(r->lines().size() + 5, std::max<std::size_t>(len, 5));
  }
}

TEST(PebbleFilterDamaged, BloomZeroLinesAndOtherLineSizes) {
  const ByteVector f = BuildBloom(BloomPolicy{}, Keys(2, 1000))->value();
  const std::size_t n = f.size() - 5;
  const std::uint32_t lines = BloomReader::Parse(f, "f")->num_lines();
  ByteVector zero = f;
  PutLe32(zero, n + 1, 0);
  ExpectRefusedAt(BloomReader::Parse(zero, "cut.bin").status(), n + 1, "line count of at least 1");
  // 32-byte and 128-byte lines, and a count that leaves 65-byte lines: Pebble panics on each.
  for (std::uint32_t bad : {lines * 2, (lines - 1) / 2, static_cast<std::uint32_t>(n / 65)}) {
    ByteVector b = f;
    PutLe32(b, n + 1, bad);
    ExpectRefusedAt(BloomReader::Parse(b, "cut.bin").status(), n + 1, "64-byte lines");
  }
  // Every value of every trailer byte: read or refused at the line count, never anything else.
  const KeyList probes = Keys(3, 200);
  for (std::size_t at = n; at < f.size(); ++at) {
    for (int v = 0; v < 256; ++v) {
      ByteVector b = f;
      b[at] = static_cast<std::uint8_t>(v);
      auto r = BloomReader::Parse(b, "cut.bin");
      if (!r.ok()) {
        ExpectRefusedAt(r.status(), n + 1, "line");
        continue;
      }
      ProbeAll(*r, probes);
    }
  }
}

ByteVector Fuse(std::uint32_t bits, std::size_t n) {
  return BuildBinaryFuse(bits, Keys(bits + n, n))->value();
}

TEST(PebbleFilterDamaged, BinaryFuseTrailerFields) {
  const ByteVector f = Fuse(8, 500);
  const std::size_t n = f.size() - 14;
  for (int bits = 0; bits < 256; ++bits) {
    ByteVector b = f;
    b[n + 13] = static_cast<std::uint8_t>(bits);
    auto r = BinaryFuseReader::Parse(b, "cut.bin");
    if (IsFingerprintBits(bits)) {
      // Another valid width over the same bytes: read if the array is long enough for it.
      if (!r.ok()) ExpectRefusedAt(r.status(), n, "fingerprints of");
      continue;
    }
    ExpectRefusedAt(r.status(), n + 13, "fingerprint bits 4, 8, 10, 12 or 16");
  }
  for (int shift : {32, 33, 63, 64, 255}) {
    ByteVector b = f;
    b[n + 12] = static_cast<std::uint8_t>(shift);
    ExpectRefusedAt(BinaryFuseReader::Parse(b, "cut.bin").status(), n + 12, "shift below 32");
  }
  ByteVector zero = f;
  PutLe32(zero, n + 8, 0);
  ExpectRefusedAt(BinaryFuseReader::Parse(zero, "cut.bin").status(), n + 8,
                  "segment count of at least 1");
  ByteVector huge = f;
  PutLe32(huge, n + 8, 0xFFFFFFFF);
  huge[n + 12] = 16;
  ExpectRefusedAt(BinaryFuseReader::Parse(huge, "cut.bin").status(), n + 8, "32-bit slot");
  // A larger count than the bytes hold: the array is short.
  ByteVector more = f;
  PutLe32(more, n + 8, ReadCount(f) + 1);
  ExpectRefusedAt(BinaryFuseReader::Parse(more, "cut.bin").status(), n, "only");
}

TEST(PebbleFilterDamaged, BinaryFuseShortAndLongArrays) {
  for (std::uint32_t bits : {4U, 8U, 10U, 12U, 16U}) {
    const KeyList keys = Keys(bits, 700);
    const ByteVector f = BuildBinaryFuse(bits, keys)->value();
    const std::size_t n = f.size() - 14;
    // Pebble reads at most up to the last entry's load: B = 10's last 3 bytes are padding no
    // load reaches (its reads are 16-bit), B = 12's padding byte is read by its 32-bit load.
    const std::size_t unread = bits == 10 ? 3 : 0;
    for (std::size_t drop = 1; drop <= 6; ++drop) {
      ByteVector b(f.begin(), f.begin() + (n - drop));
      b.insert(b.end(), f.end() - 14, f.end());
      auto r = BinaryFuseReader::Parse(b, "cut.bin");
      if (drop <= unread) {
        ASSERT_TRUE(r.ok()) << bits << " " << drop;
        for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(r->MayContain(keys[i]));
        EXPECT_EQ(r->expected_fingerprint_bytes(), n);
      } else {
        ExpectRefusedAt(r.status(), n - drop, "bytes as Pebble reads them");
      }
    }
    // Longer than Pebble writes: read as Pebble reads it (the extra bytes are never reached).
    ByteVector longer(f.begin(), f.begin() + n);
    longer.insert(longer.end(), 9, 0xAB);
    longer.insert(longer.end(), f.end() - 14, f.end());
    auto r = BinaryFuseReader::Parse(longer, "cut.bin");
    ASSERT_TRUE(r.ok());
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(r->MayContain(keys[i]));
    auto doc = InspectBinaryFuse(longer, "cut.bin");
    ASSERT_TRUE(doc.ok());
    EXPECT_TRUE(doc->contains("payload_note"));
  }
}

TEST(PebbleFilterDamaged, BinaryFuseEveryCut) {
  const KeyList probes = Keys(9, 100);
  for (std::uint32_t bits : {4U, 10U, 16U}) {
    const ByteVector f = Fuse(bits, 60);
    for (std::size_t len = 0; len <= f.size(); ++len) {
      const ByteSpan cut(f.data(), len);
      auto r = BinaryFuseReader::Parse(cut, "cut.bin");
      if (!r.ok()) {
        const Status& s = r.status();
        EXPECT_EQ(s.code(), StatusCode::kCorrupt);
        EXPECT_EQ(s.file(), "cut.bin");
        ASSERT_TRUE(s.offset().has_value());
        EXPECT_LT(*s.offset(), len);
        continue;
      }
      EXPECT_EQ(r->empty(), len <= 14);
      ProbeAll(*r, probes);
    }
  }
}

}  // namespace
}  // namespace bloomcodec::pebble
