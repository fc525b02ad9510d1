// The RocksDB full-filter formats as the command line sees them: rocksdb-bloom-legacy,
// rocksdb-bloom, rocksdb-ribbon. The name chooses what build writes; reading always goes by the
// filter's trailer, as RocksDB's reader does (a Ribbon policy's small filters are FastLocalBloom).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "filter_sizing.h"
#include "formats/rocksdb/family.h"
#include "rocksdb/inspect.h"

namespace bloomcodec::rocksdb {

namespace {

Result<double> BitsPerKey(const FilterParams& params) {
  if (params.fp_chance || params.buckets_per_element) {
    return Status::InvalidArgument(
        "RocksDB filters take --bits-per-key B only (not --fp-chance / --buckets-per-element)");
  }
  if (!params.bits_per_key) {
    return Status::InvalidArgument("RocksDB filters need --bits-per-key B (a decimal, e.g. 9.9)");
  }
  return *params.bits_per_key;
}

struct HashWriter {
  FilterEncoding encoding;
  double bits_per_key;
  std::vector<std::uint64_t> hashes;
  void Add(std::span<const ByteSpan> keys) { AppendCollapsedHashes(encoding, keys, hashes); }
  Result<ByteVector> Take() && { return BuildFullFilterFromHashes(encoding, bits_per_key, hashes); }
};

class FullFilterFormat final : public FormatCodec {
 public:
  explicit FullFilterFormat(FilterEncoding encoding) : encoding_(encoding) {}

  std::string_view name() const override { return FormatNameOf(encoding_); }
  std::string_view summary() const override {
    switch (encoding_) {
      case FilterEncoding::kLegacyBloom:
        return "one RocksDB full filter, legacy cache-local Bloom (format_version < 5)";
      case FilterEncoding::kFastLocalBloom:
        return "one RocksDB full filter, FastLocalBloom (format_version 5)";
      case FilterEncoding::kRibbon: break;
    }
    return "one RocksDB full filter, Standard128 Ribbon (NewRibbonFilterPolicy)";
  }
  std::string_view params_help() const override { return "--bits-per-key B"; }

  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.expected_keys) {
      return Status::InvalidArgument(
          "--expected-keys does not apply to RocksDB: its filter is sized from the keys given");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(double b, BitsPerKey(params));
    return BuildFullFilter(encoding_, b, keys);
  }

  // RocksDB's builder keeps one hash per key until Finish (Ribbon solves for all at once, and
  // the Bloom kinds are sized from the count of distinct neighbours): so does the streamed one.
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    if (params.expected_keys) return Build(KeyList(), params).status();  // the same refusal
    BLOOMCODEC_ASSIGN_OR_RETURN(double b, BitsPerKey(params));
    BLOOMCODEC_RETURN_IF_ERROR(PolicyParamsFor(b).status());  // refused before any key is read
    return StartCounting(HashWriter{encoding_, b, {}}, key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(double b, BitsPerKey(params));
    if (!params.expected_keys || *params.expected_keys < 0) {
      return Status::InvalidArgument("size needs --expected-keys N (an integer >= 0)");
    }
    const auto n = static_cast<std::uint64_t>(*params.expected_keys);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterPolicyParams policy, PolicyParamsFor(b));
    // Ribbon rounds its size with the first key's hash: the two extremes of that rounding.
    BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterSize s, SizeFullFilter(encoding_, b, n, 0));
    BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterSize s_hi,
                                SizeFullFilter(encoding_, b, n, 0xFFFFFFFF00000000ULL));
    SizeInfo info;
    info.bits_per_key = b;
    info.file_bytes = static_cast<std::int64_t>(s.filter_bytes);
    const std::uint64_t payload =
        s.filter_bytes > kMetadataBytes ? s.filter_bytes - kMetadataBytes : 0;
    info.bits = static_cast<std::int64_t>(payload * 8);
    info.hash_count = s.num_probes;
    if (policy.bits_per_key != b) {
      info.warnings.push_back("RocksDB uses bits_per_key " + std::to_string(policy.bits_per_key) +
                              " (it clamps to [1, 100])");
    }
    if (encoding_ == FilterEncoding::kRibbon) {
      if (s.kind == FullFilterKind::kEmpty) {
        info.warnings.push_back("0 keys: RocksDB writes an empty (0-byte) Ribbon filter");
      } else if (s.kind == FullFilterKind::kFastLocalBloom) {
        info.warnings.push_back("for " + std::to_string(n) +
                                " keys RocksDB writes a "
                                "FastLocalBloom filter instead (smaller than Ribbon here)");
      } else {
        // Ribbon has no probes: hash_count is its number of result bits (solution columns).
        const std::uint32_t segments = static_cast<std::uint32_t>(payload / 16);
        info.hash_count = (segments + s.num_blocks - 1) / s.num_blocks;
        info.warnings.push_back("Ribbon: " + std::to_string(s.num_slots) + " slots in " +
                                std::to_string(s.num_blocks) + " blocks; hash_count is the " +
                                "number of result bits per key (solution columns)");
        if (s_hi.filter_bytes != s.filter_bytes) {
          info.warnings.push_back(
              "RocksDB rounds by the first key's hash: " + std::to_string(s.filter_bytes) + " or " +
              std::to_string(s_hi.filter_bytes) + " bytes");
        }
      }
    } else if (encoding_ == FilterEncoding::kLegacyBloom && policy.whole_bits_per_key >= 14) {
      info.warnings.push_back("RocksDB logs: Using legacy Bloom filter with high (" +
                              std::to_string(policy.whole_bits_per_key) +
                              ") bits/key. Significant or dramatic filter space and/or accuracy "
                              "improvement is available with format_version>=5.");
    }
    return info;
  }

  Status Hash(ByteSpan key, std::string& line) const override {
    line = encoding_ == FilterEncoding::kLegacyBloom ? std::to_string(LegacyBloomHash(key))
                                                     : std::to_string(Hash64(key));
    return {};
  }

  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    // The trailer decides, as in RocksDB: any bytes are a filter to its reader.
    BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f, FullFilterReader::Parse(file, source));
    f.MayContainBatch(keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectFullFilter(file, source, encoding_);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpFullFilter(file, source, encoding_);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpFullFilter(dump, source, encoding_);
  }

 private:
  FilterEncoding encoding_;
};

}  // namespace

const FormatCodec* FullFilterCodec(FormatId id) {
  static const FullFilterFormat legacy(FilterEncoding::kLegacyBloom);
  static const FullFilterFormat bloom(FilterEncoding::kFastLocalBloom);
  static const FullFilterFormat ribbon(FilterEncoding::kRibbon);
  switch (id) {
    case FormatId::kBloomLegacy: return &legacy;
    case FormatId::kBloom: return &bloom;
    case FormatId::kRibbon: return &ribbon;
    case FormatId::kSst: break;
  }
  return nullptr;
}

}  // namespace bloomcodec::rocksdb
