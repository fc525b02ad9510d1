#include "sst_filter_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "codec/popcount.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockContents;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::ReadBlock;

namespace {

// splitmix64: a fixed, portable stream, so that a measured rate is reproducible.
std::uint64_t Mix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double MeasureFp(const FullFilterReader& f) {
  const KeyList keys = SyntheticAbsentKeys(kFpMeasureKeys);
  std::vector<std::uint8_t> answers(keys.size());
  f.MayContainBatch(keys, answers);
  const auto positives = std::count(answers.begin(), answers.end(), std::uint8_t{1});
  return static_cast<double>(positives) / static_cast<double>(kFpMeasureKeys);
}

// A block-based filter: LevelDB's Bloom layout per filter (bits, then k in the last byte), the
// rate of each fill^k weighed by its bits, as for partitions.
Result<SstFilterStats> BlockBasedStats(const SstReader& sst) {
  SstFilterStats stats;
  const ByteSpan block = sst.filter()->contents.bytes();
  BLOOMCODEC_ASSIGN_OR_RETURN(
      leveldb::FilterBlockLayout layout,
      leveldb::ParseFilterBlockLayout(block, sst.source(), sst.filter()->handle.offset));
  double weighted = 0;
  double total = 0;
  for (const leveldb::FilterRange& r : layout.filters) {
    if (r.size() < 2) continue;  // empty: answers "absent" for every key, holds nothing
    const ByteSpan f = block.subspan(r.start, r.size());
    const std::uint64_t bits = (f.size() - 1) * 8;
    const std::uint64_t set = PopCountBytes(f.first(f.size() - 1));
    const std::uint32_t k = f.back();
    ++stats.filters;
    stats.bits += bits;
    stats.bits_set += set;
    stats.hash_count = std::max(stats.hash_count, k);
    double p = std::pow(static_cast<double>(set) / static_cast<double>(bits), k);
    if (k == 0 || k > 30) {  // the reader answers "may match" for every key
      stats.always_match = true;
      p = 1;
    }
    weighted += p * static_cast<double>(bits);
    total += static_cast<double>(bits);
  }
  stats.fp_rate = total > 0 ? weighted / total : 0;
  return stats;
}

}  // namespace

KeyList SyntheticAbsentKeys(std::size_t count) {
  KeyList keys;
  keys.Reserve(count, count * 24);
  std::uint64_t state = 0x626c6f6f6d636f64ull;  // fixed seed
  std::uint8_t key[24] = {'b', 'c', '-', 'a', 'b', 's', 'e', 'n', 't', '-'};
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t a = Mix(state), b = Mix(state);
    for (int j = 0; j < 7; ++j) key[10 + j] = static_cast<std::uint8_t>(a >> (8 * j));
    for (int j = 0; j < 7; ++j) key[17 + j] = static_cast<std::uint8_t>(b >> (8 * j));
    keys.Add(ByteSpan(key, sizeof key));
  }
  return keys;
}

Result<SstFilterStats> ComputeSstFilterStats(const SstReader& sst) {
  SstFilterStats stats;
  if (!sst.filter()) return stats;
  if (sst.filter()->placement == FilterPlacement::kBlockBased) return BlockBasedStats(sst);
  std::vector<BlockContents> blocks;
  if (sst.filter()->placement == FilterPlacement::kFull) {
    blocks.push_back(sst.filter()->contents);
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block index, Block::Parse(sst.filter()->contents, sst.source(),
                                                          "filter partition index",
                                                          BlockFooterLayout::kRocksDb));
    BLOOMCODEC_RETURN_IF_ERROR(
        sst.ForEachIndexEntry(index, [&](ByteSpan, const BlockHandle& h) -> Status {
          BLOOMCODEC_ASSIGN_OR_RETURN(
              BlockContents c,
              ReadBlock(sst.file(), h, sst.source(), sst.BlockOptions(), "filter partition"));
          blocks.push_back(std::move(c));
          return Status();
        }));
  }
  std::vector<ByteSpan> filters;
  for (const BlockContents& c : blocks) filters.push_back(c.bytes());
  return FullFilterStats(filters, sst.source(), sst.filter()->family);
}

Result<SstFilterStats> FullFilterStats(std::span<const ByteSpan> filters, std::string_view source,
                                       FilterPolicyFamily family) {
  SstFilterStats stats;
  double weighted = 0;
  double total = 0;
  for (const ByteSpan bytes : filters) {
    BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f, FullFilterReader::Parse(bytes, source, family));
    ++stats.filters;
    stats.bits += f.bit_count();
    stats.bits_set += f.bits_set();
    stats.hash_count = std::max(stats.hash_count, f.hash_count());
    double p = 0;
    switch (f.kind()) {
      case FullFilterKind::kEmpty: p = 0; break;
      case FullFilterKind::kAlwaysMatch:
        stats.always_match = true;
        p = 1;
        break;
      case FullFilterKind::kRibbon:
        stats.ribbon = true;
        p = MeasureFp(f);
        stats.measured_with += kFpMeasureKeys;
        break;
      default: {
        const double fill =
            f.bit_count() > 0 ? static_cast<double>(f.bits_set()) / f.bit_count() : 0;
        p = std::pow(fill, f.hash_count());
      }
    }
    // Partitions share one policy: weigh each by its size, as its keys are.
    const double weight = static_cast<double>(std::max<std::uint64_t>(f.bit_count(), 1));
    weighted += p * weight;
    total += weight;
  }
  stats.fp_rate = total > 0 ? weighted / total : 0;
  return stats;
}

namespace {

// The kind a full filter's trailer names, when it is one a rebuild keeps.
std::optional<FilterEncoding> EncodingOfTrailer(ByteSpan filter, std::string_view source) {
  Result<FullFilterReader> f = FullFilterReader::Parse(filter, source);
  if (!f.ok()) return std::nullopt;
  switch (f->kind()) {
    case FullFilterKind::kLegacyBloom: return FilterEncoding::kLegacyBloom;
    case FullFilterKind::kFastLocalBloom: return FilterEncoding::kFastLocalBloom;
    case FullFilterKind::kRibbon: return FilterEncoding::kRibbon;
    default: return std::nullopt;
  }
}

// Ribbon when any partition is (RocksDB's Ribbon builder falls back to FastLocalBloom for a
// partition of few keys), else the first partition's kind.
std::optional<FilterEncoding> EncodingOfPartitions(const SstReader& sst) {
  Result<Block> index = Block::Parse(sst.filter()->contents, sst.source(), "filter partition index",
                                     BlockFooterLayout::kRocksDb);
  if (!index.ok()) return std::nullopt;
  std::optional<FilterEncoding> found;
  // The Status only ends the walk at the first Ribbon partition.
  (void)sst.ForEachIndexEntry(*index, [&](ByteSpan, const BlockHandle& h) -> Status {
    Result<BlockContents> c =
        ReadBlock(sst.file(), h, sst.source(), sst.BlockOptions(), "filter partition");
    const std::optional<FilterEncoding> kind =
        c.ok() ? EncodingOfTrailer(c->bytes(), sst.source()) : std::nullopt;
    if (kind && (!found || kind == FilterEncoding::kRibbon)) found = kind;
    return found == FilterEncoding::kRibbon ? Status::Internal("found") : Status();
  });
  return found;
}

}  // namespace

FilterEncoding StoredFilterEncoding(const SstReader& sst) {
  const FilterEncoding bloom = sst.footer().format_version >= 5 ? FilterEncoding::kFastLocalBloom
                                                                : FilterEncoding::kLegacyBloom;
  const std::optional<std::string> policy =
      sst.properties() ? sst.properties()->String("rocksdb.filter.policy") : std::nullopt;
  // From 7.0 the name is the policy's (a Ribbon policy's small filters are FastLocalBloom: its
  // builder chooses that itself).
  if (policy == "ribbonfilter") return FilterEncoding::kRibbon;
  if (policy == "bloomfilter") return bloom;
  std::optional<FilterEncoding> stored;
  if (sst.filter() && sst.filter()->family == FilterPolicyFamily::kBuiltin) {
    if (sst.filter()->placement == FilterPlacement::kFull) {
      stored = EncodingOfTrailer(sst.filter()->contents.bytes(), sst.source());
    } else if (sst.filter()->placement == FilterPlacement::kPartitioned) {
      stored = EncodingOfPartitions(sst);
    }
  }
  return stored.value_or(bloom);
}

std::string_view RebuiltFilterPolicyName(const SstReader& sst, FilterEncoding encoding) {
  if (sst.properties() &&
      sst.properties()->String("rocksdb.filter.policy") == std::string(kBuiltinFilterName)) {
    return kBuiltinFilterName;
  }
  return encoding == FilterEncoding::kRibbon ? "ribbonfilter" : "bloomfilter";
}

}  // namespace bloomcodec::rocksdb
