// Reading a RocksDB 7.8 full filter: the trailer dispatch of GetBuiltinFilterBitsReader and the
// three queries (legacy cache-local Bloom, FastLocalBloom, Standard128 Ribbon).
#include <bit>

#include <boost/endian/conversion.hpp>
#include <limits>
#include <string>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "codec/popcount.h"
#include "ribbon_math.h"
#include "rocksdb/speedb_paired_bloom.h"

namespace bloomcodec::rocksdb {

namespace {

constexpr std::uint8_t kFastLocalMarker = 0xFF;  // -1 as a signed byte
constexpr std::uint8_t kRibbonMarker = 0xFE;     // -2
constexpr std::uint32_t kCacheLineBytes = 64;
// Filters up to this size are batch-probed without the prefetch stage (they stay in L2).
constexpr std::size_t kNoPrefetchBytes = 256 * 1024;

}  // namespace

std::string_view FullFilterKindName(FullFilterKind kind) {
  switch (kind) {
    case FullFilterKind::kEmpty: return "empty";
    case FullFilterKind::kLegacyBloom: return "legacy_bloom";
    case FullFilterKind::kFastLocalBloom: return "fast_local_bloom";
    case FullFilterKind::kRibbon: return "ribbon";
    case FullFilterKind::kAlwaysMatch: return "always_match";
    case FullFilterKind::kSpeedbPairedBloom: return "speedb_paired_bloom";
  }
  return "unknown";
}

Result<FullFilterReader> FullFilterReader::ParseSpeedb(ByteSpan bytes) {
  FullFilterReader r;
  r.bytes_ = bytes;
  r.family_ = FilterPolicyFamily::kSpeedbPaired;
  const speedb::Trailer t = speedb::ReadTrailer(bytes);
  r.payload_len_ = t.payload_bytes;
  r.num_probes_ = t.num_probes;
  r.marker_ = bytes.size() > speedb::kTrailerBytes ? bytes[t.payload_bytes] : 0;
  switch (t.kind) {
    case speedb::Kind::kEmpty: r.kind_ = FullFilterKind::kEmpty; break;
    case speedb::Kind::kPaired: r.kind_ = FullFilterKind::kSpeedbPairedBloom; break;
    case speedb::Kind::kAlwaysMatch:
      r.kind_ = FullFilterKind::kAlwaysMatch;
      r.always_match_reason_ = t.always_match_reason;
      break;
  }
  return r;
}

Result<FullFilterReader> FullFilterReader::Parse(ByteSpan bytes, std::string_view source,
                                                 FilterPolicyFamily family) {
  if (bytes.size() > std::numeric_limits<std::uint32_t>::max()) {
    return Status::CorruptFile(std::string(source),
                               "a RocksDB filter is at most 4 GiB (its length is 32-bit), this "
                               "one is " +
                                   std::to_string(bytes.size()) + " bytes");
  }
  if (family == FilterPolicyFamily::kSpeedbPaired) return ParseSpeedb(bytes);
  FullFilterReader r;
  r.bytes_ = bytes;
  if (bytes.size() <= kMetadataBytes) {
    r.kind_ = FullFilterKind::kEmpty;
    return r;
  }
  const std::uint32_t len = static_cast<std::uint32_t>(bytes.size() - kMetadataBytes);
  const std::uint8_t* meta = bytes.data() + len;
  r.payload_len_ = len;
  r.marker_ = meta[0];
  auto always = [&r](std::string_view why) {
    r.kind_ = FullFilterKind::kAlwaysMatch;
    r.always_match_reason_ = why;
    return r;
  };
  const auto signed_marker = static_cast<std::int8_t>(meta[0]);
  if (signed_marker >= 1) {
    r.num_probes_ = meta[0];
    r.num_lines_ = boost::endian::load_little_u32(meta + 1);
    // Trap: RocksDB multiplies in 32 bits, so a huge line count can "match" by wrapping.
    if (r.num_lines_ * kCacheLineBytes == len) {
      r.log2_line_bytes_ = 6;
    } else if (r.num_lines_ == 0 || len % r.num_lines_ != 0) {
      return always("legacy Bloom geometry: payload is not num_lines whole lines");
    } else {
      std::uint32_t log2 = 0;
      while ((r.num_lines_ << log2) < len) ++log2;
      if ((r.num_lines_ << log2) != len) {
        return always("legacy Bloom geometry: line size is not a power of two");
      }
      r.log2_line_bytes_ = log2;
    }
    r.kind_ = FullFilterKind::kLegacyBloom;
    return r;
  }
  if (meta[0] == kFastLocalMarker) {
    const std::uint8_t sub_implementation = meta[1];
    const std::uint8_t block_and_probes = meta[2];
    r.log2_line_bytes_ = ((block_and_probes >> 5) & 7U) + 6;
    r.num_probes_ = block_and_probes & 31U;
    if (r.num_probes_ < 1 || r.num_probes_ > 30) {
      return always("new Bloom: num_probes 0 or 31 is reserved");
    }
    if (meta[3] != 0 || meta[4] != 0) return always("new Bloom: reserved bytes are not zero");
    if (sub_implementation != 0) return always("new Bloom: reserved sub-implementation");
    if (r.log2_line_bytes_ != 6) return always("new Bloom: block size other than 64 bytes");
    r.kind_ = FullFilterKind::kFastLocalBloom;
    return r;
  }
  if (meta[0] == kRibbonMarker) {
    r.ribbon_seed_ = meta[1];
    r.num_blocks_ =
        std::uint32_t{meta[2]} | (std::uint32_t{meta[3]} << 8) | (std::uint32_t{meta[4]} << 16);
    if (r.num_blocks_ < 2) return always("Ribbon with fewer than 2 blocks");
    r.raw_seed_ = ribbon::RawSeed(r.ribbon_seed_);
    r.num_starts_ = r.num_blocks_ * ribbon::kCoeffBits - ribbon::kCoeffBits + 1;
    const ribbon::Layout layout = ribbon::LayoutFor(len / 16, r.num_blocks_);
    r.upper_num_columns_ = layout.upper_num_columns;
    r.upper_start_block_ = layout.upper_start_block;
    r.kind_ = FullFilterKind::kRibbon;
    return r;
  }
  return always(meta[0] == 0 ? "marker 0: zero probes" : "reserved marker");
}

bool FullFilterReader::OriginalReadsOutside() const {
  if (kind_ == FullFilterKind::kSpeedbPairedBloom) {
    return speedb::ReadsOutside(speedb::ReadTrailer(bytes_));
  }
  if (kind_ == FullFilterKind::kFastLocalBloom) return payload_len_ < 64;
  if (kind_ == FullFilterKind::kLegacyBloom) {
    return (std::uint64_t{num_lines_} << log2_line_bytes_) != payload_len_;
  }
  return false;
}

ByteSpan FullFilterReader::payload() const { return bytes_.first(payload_len_); }

bool FullFilterReader::LegacyMayMatch(std::uint32_t h) const {
  // Offsets wrap in 32 bits as RocksDB's do; see BitIsSet for the out-of-filter case.
  const std::uint32_t line_offset = (h % num_lines_) << log2_line_bytes_;
  const std::uint32_t log2_line_bits = log2_line_bytes_ + 3;
  const std::uint32_t mask =
      log2_line_bits >= 32 ? 0xFFFFFFFFU : (std::uint32_t{1} << log2_line_bits) - 1;
  const std::uint32_t delta = (h >> 17) | (h << 15);
  for (std::uint32_t i = 0; i < num_probes_; ++i) {
    const std::uint32_t bit = h & mask;
    if (!BitIsSet(std::uint64_t{line_offset} + bit / 8, bit % 8)) return false;
    h += delta;
  }
  return true;
}

bool FullFilterReader::FastLocalMayMatch(std::uint64_t hash) const {
  const auto h1 = static_cast<std::uint32_t>(hash);
  std::uint32_t h2 = static_cast<std::uint32_t>(hash >> 32);
  const std::uint32_t lines = payload_len_ >> 6;
  const std::uint32_t line_offset = static_cast<std::uint32_t>((std::uint64_t{h1} * lines) >> 32)
                                    << 6;
  for (std::uint32_t i = 0; i < num_probes_; ++i, h2 *= 0x9e3779b9U) {
    const std::uint32_t bit = h2 >> 23;
    if (!BitIsSet(std::uint64_t{line_offset} + (bit >> 3), bit & 7)) return false;
  }
  return true;
}

bool FullFilterReader::RibbonMayMatch(std::uint64_t hash) const {
  using ribbon::CoeffRow;
  const std::uint64_t seeded = ribbon::SeededHash(hash, raw_seed_);
  const std::uint32_t start_slot = ribbon::Start(seeded, num_starts_);
  const std::uint32_t start_block = start_slot / ribbon::kCoeffBits;
  const std::uint32_t start_bit = start_slot % ribbon::kCoeffBits;
  std::uint32_t num_columns = upper_num_columns_;
  const std::uint32_t segment =
      start_block * num_columns - std::min(start_block, upper_start_block_);
  if (start_block < upper_start_block_) --num_columns;
  const CoeffRow cr = ribbon::Coefficients(seeded);
  const std::uint32_t expected = ribbon::ExpectedResult(seeded);
  const std::uint8_t* data = bytes_.data();
  if (start_bit == 0) {
    for (std::uint32_t i = 0; i < num_columns; ++i) {
      const CoeffRow s = ribbon::LoadSegment(data + 16 * std::uint64_t{segment + i});
      if (ribbon::Parity(s & cr) != static_cast<int>((expected >> i) & 1U)) return false;
    }
    return true;
  }
  const CoeffRow left = cr << start_bit;
  const CoeffRow right = cr >> (ribbon::kCoeffBits - start_bit);
  for (std::uint32_t i = 0; i < num_columns; ++i) {
    const CoeffRow s =
        (ribbon::LoadSegment(data + 16 * std::uint64_t{segment + i}) & left) ^
        (ribbon::LoadSegment(data + 16 * std::uint64_t{segment + num_columns + i}) & right);
    if (ribbon::Parity(s) != static_cast<int>((expected >> i) & 1U)) return false;
  }
  return true;
}

bool FullFilterReader::SpeedbMayMatch(std::uint64_t hash) const {
  speedb::Trailer t;
  t.kind = speedb::Kind::kPaired;
  t.payload_bytes = payload_len_;
  t.num_probes = num_probes_;
  return speedb::HashMayMatch(bytes_, t, hash);
}

bool FullFilterReader::HashMayMatch(std::uint64_t hash) const {
  switch (kind_) {
    case FullFilterKind::kEmpty: return false;
    case FullFilterKind::kAlwaysMatch: return true;
    case FullFilterKind::kLegacyBloom: return LegacyMayMatch(static_cast<std::uint32_t>(hash));
    case FullFilterKind::kFastLocalBloom: return FastLocalMayMatch(hash);
    case FullFilterKind::kRibbon: return RibbonMayMatch(hash);
    case FullFilterKind::kSpeedbPairedBloom: return SpeedbMayMatch(hash);
  }
  return true;
}

bool FullFilterReader::MayContain(ByteSpan key) const {
  switch (kind_) {
    case FullFilterKind::kEmpty: return false;
    case FullFilterKind::kAlwaysMatch: return true;
    case FullFilterKind::kLegacyBloom: return LegacyMayMatch(LegacyBloomHash(key));
    case FullFilterKind::kFastLocalBloom: return FastLocalMayMatch(Hash64(key));
    case FullFilterKind::kRibbon: return RibbonMayMatch(Hash64(key));
    case FullFilterKind::kSpeedbPairedBloom: return SpeedbMayMatch(Hash64(key));
  }
  return true;
}

std::uint64_t FullFilterReader::FirstByteProbed(std::uint64_t hash) const {
  switch (kind_) {
    case FullFilterKind::kLegacyBloom: {
      const auto h = static_cast<std::uint32_t>(hash);
      return static_cast<std::uint32_t>((h % num_lines_) << log2_line_bytes_);
    }
    case FullFilterKind::kFastLocalBloom:
      return static_cast<std::uint64_t>((hash & 0xFFFFFFFFU) * (payload_len_ >> 6) >> 32) << 6;
    case FullFilterKind::kRibbon: {
      const std::uint32_t start_block =
          ribbon::Start(ribbon::SeededHash(hash, raw_seed_), num_starts_) / ribbon::kCoeffBits;
      return 16 * std::uint64_t{start_block * upper_num_columns_ -
                                std::min(start_block, upper_start_block_)};
    }
    default: return 0;
  }
}

void FullFilterReader::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  const std::size_t n = keys.size();
  if (kind_ == FullFilterKind::kEmpty || kind_ == FullFilterKind::kAlwaysMatch) {
    const std::uint8_t a = kind_ == FullFilterKind::kAlwaysMatch ? 1 : 0;
    for (std::size_t i = 0; i < n; ++i) answers[i] = a;
    return;
  }
  const bool legacy = kind_ == FullFilterKind::kLegacyBloom;
  if (bytes_.size() <= kNoPrefetchBytes) {
    // Small enough to stay in cache: prefetching would only add work.
    switch (kind_) {
      case FullFilterKind::kLegacyBloom:
        for (std::size_t i = 0; i < n; ++i) answers[i] = LegacyMayMatch(LegacyBloomHash(keys[i]));
        return;
      case FullFilterKind::kFastLocalBloom:
        for (std::size_t i = 0; i < n; ++i) answers[i] = FastLocalMayMatch(Hash64(keys[i]));
        return;
      case FullFilterKind::kSpeedbPairedBloom:
        for (std::size_t i = 0; i < n; ++i) answers[i] = SpeedbMayMatch(Hash64(keys[i]));
        return;
      default:
        for (std::size_t i = 0; i < n; ++i) answers[i] = RibbonMayMatch(Hash64(keys[i]));
        return;
    }
  }
  // Hash a chunk and prefetch the memory each key will touch, then probe: the cache misses of
  // a large filter overlap instead of queueing one after another.
  constexpr std::size_t kChunk = 32;
  std::uint64_t hashes[kChunk];
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    for (std::size_t i = 0; i < m; ++i) {
      hashes[i] = legacy ? std::uint64_t{LegacyBloomHash(keys[base + i])} : Hash64(keys[base + i]);
      const std::uint64_t at = FirstByteProbed(hashes[i]);
      if (at < bytes_.size()) __builtin_prefetch(bytes_.data() + at);
    }
    for (std::size_t i = 0; i < m; ++i) answers[base + i] = HashMayMatch(hashes[i]) ? 1 : 0;
  }
}

std::size_t FullFilterReader::FirstHashDenied(std::span<const std::uint64_t> hashes) const {
  const std::size_t n = hashes.size();
  // Prefetched this far ahead: enough misses in flight, still in L1 when probed.
  constexpr std::size_t kAhead = 16;
  const bool prefetch = bytes_.size() > kNoPrefetchBytes;
  for (std::size_t i = 0; i < n; ++i) {
    if (prefetch && i + kAhead < n) {
      const std::uint64_t at = FirstByteProbed(hashes[i + kAhead]);
      if (at < bytes_.size()) __builtin_prefetch(bytes_.data() + at);
    }
    if (!HashMayMatch(hashes[i])) return i;
  }
  return n;
}

std::uint32_t FullFilterReader::hash_count() const {
  switch (kind_) {
    case FullFilterKind::kLegacyBloom:
    case FullFilterKind::kFastLocalBloom: return num_probes_;
    case FullFilterKind::kRibbon: return upper_num_columns_;
    case FullFilterKind::kSpeedbPairedBloom: return num_probes_ / 2 * 2;  // half in each block
    default: return 0;
  }
}

std::uint64_t FullFilterReader::bit_count() const {
  if (family_ == FilterPolicyFamily::kSpeedbPaired) {
    return speedb::BloomBits(speedb::ReadTrailer(bytes_));
  }
  return std::uint64_t{payload_len_} * 8;
}

std::uint64_t FullFilterReader::bits_set() const {
  if (family_ == FilterPolicyFamily::kSpeedbPaired) {
    return speedb::BloomBitsSet(bytes_, speedb::ReadTrailer(bytes_));
  }
  return PopCountBytes(payload());
}

Document FullFilterReader::Describe() const {
  Document d;
  d["kind"] = FullFilterKindName(kind_);
  d["filter_bytes"] = bytes_.size();
  if (family_ == FilterPolicyFamily::kSpeedbPaired) return DescribeSpeedb(d);
  if (bytes_.size() <= kMetadataBytes) {
    d["note"] = "5 bytes or fewer: RocksDB treats it as built from zero keys (nothing matches)";
    return d;
  }
  const std::uint8_t* meta = bytes_.data() + payload_len_;
  d["payload_bytes"] = payload_len_;
  d["trailer_hex"] = ToHex(bytes_.subspan(payload_len_));
  d["marker"] = meta[0];
  switch (kind_) {
    case FullFilterKind::kLegacyBloom:
      d["num_probes"] = num_probes_;
      d["num_lines"] = num_lines_;
      d["line_bytes"] = std::uint64_t{1} << log2_line_bytes_;
      break;
    case FullFilterKind::kFastLocalBloom:
      d["sub_implementation"] = meta[1];
      d["num_probes"] = num_probes_;
      d["block_bytes"] = std::uint64_t{1} << log2_line_bytes_;
      d["num_blocks"] = payload_len_ >> 6;
      break;
    case FullFilterKind::kRibbon:
      d["seed"] = ribbon_seed_;
      d["num_blocks"] = num_blocks_;
      d["num_slots"] = std::uint64_t{num_blocks_} * ribbon::kCoeffBits;
      d["num_starts"] = num_starts_;
      d["num_segments"] = payload_len_ / 16;
      d["upper_num_columns"] = upper_num_columns_;
      d["upper_start_block"] = upper_start_block_;
      break;
    case FullFilterKind::kAlwaysMatch: d["always_match_reason"] = always_match_reason_; break;
    case FullFilterKind::kEmpty:
    case FullFilterKind::kSpeedbPairedBloom: break;
  }
  return d;
}

Document FullFilterReader::DescribeSpeedb(Document d) const {
  d["policy"] = speedb::kPolicyName;
  if (kind_ == FullFilterKind::kEmpty) {
    d["note"] = "4 bytes or fewer: Speedb treats it as built from zero keys (nothing matches)";
    return d;
  }
  d["payload_bytes"] = payload_len_;
  d["trailer_hex"] = ToHex(bytes_.subspan(payload_len_));
  d["filter_type"] = marker_;
  d["num_probes"] = num_probes_;
  if (kind_ == FullFilterKind::kAlwaysMatch) {
    d["always_match_reason"] = always_match_reason_;
    return d;
  }
  d["num_blocks"] = payload_len_ / speedb::kBlockBytes;
  d["num_batches"] = payload_len_ / speedb::kBatchBytes;
  d["bloom_bits"] = bit_count();
  return d;
}

}  // namespace bloomcodec::rocksdb
