// Pebble's table filters as the command line sees them: pebble-bloom and pebble-binaryfuse, one
// filter block's bytes each. Build and size follow Pebble's writers; probe, inspect and dump go by
// the filter's own trailer, as Pebble's readers do.
#include "pebble/format_codecs.h"

#include <cmath>
#include <string>
#include <vector>

#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"
#include "pebble/inspect.h"

namespace bloomcodec::pebble {

// Pebble's policies take an integer (bloom.FilterPolicy: uint32; binaryfuse: int).
Result<std::uint32_t> WholeBits(const FilterParams& params, std::string_view what) {
  if (params.fp_chance || params.buckets_per_element) {
    return Status::InvalidArgument(
        "Pebble filters take --bits-per-key N only (not --fp-chance / "
        "--buckets-per-element)");
  }
  if (!params.bits_per_key) {
    return Status::InvalidArgument("Pebble filters need --bits-per-key N (" + std::string(what) +
                                   ")");
  }
  const double b = *params.bits_per_key;
  if (!std::isfinite(b) || b != std::floor(b) || b < 1 || b > 4294967295.0) {
    return Status::InvalidArgument("--bits-per-key must be a whole number from 1 (" +
                                   std::string(what) + ")");
  }
  return static_cast<std::uint32_t>(b);
}

namespace {

// probe of one filter block, read by its own trailer as Pebble's reader does.
template <typename Reader>
Status ProbeFilter(ByteSpan file, std::string_view source, const KeyList& keys,
                   std::span<std::uint8_t> answers) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Reader f, Reader::Parse(file, source));
  f.MayContainBatch(keys, answers);
  return {};
}

Status NoExpectedKeys(const FilterParams& params) {
  if (!params.expected_keys) return {};
  return Status::InvalidArgument(
      "--expected-keys does not apply to Pebble: its filter is sized from the keys given");
}

Result<std::uint64_t> ExpectedKeys(const FilterParams& params) {
  if (!params.expected_keys || *params.expected_keys < 0) {
    return Status::InvalidArgument("size needs --expected-keys N (an integer >= 0)");
  }
  return static_cast<std::uint64_t>(*params.expected_keys);
}

constexpr std::string_view kBloomBits = "bits per key, an integer >= 1";
constexpr std::string_view kFuseBits = "bits per fingerprint: 4, 8, 10, 12 or 16";

// ----- pebble-bloom -----

struct BloomWriter {
  BloomPolicy policy;
  std::vector<std::uint64_t> hashes;
  void Add(std::span<const ByteSpan> keys) { AppendBloomHashes(keys, policy.flavor, hashes); }
  // No keys: the 0-byte filter block Pebble before CockroachDB 26.2 writes for a table without
  // point keys (26.2 writes no block at all).
  Result<ByteVector> Take() && {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> f, BuildBloomFromHashes(policy, hashes));
    return f ? std::move(*f) : ByteVector();
  }
};

class BloomFormat final : public FormatCodec {
 public:
  explicit BloomFormat(BloomProbes probes) : probes_(probes) {}

  std::string_view name() const override { return kBloomFormatName; }
  std::string_view summary() const override {
    return "one Pebble table filter, fullfilter.rocksdb.BuiltinBloomFilter (RocksDB's legacy "
           "full-filter bytes)";
  }
  std::string_view params_help() const override { return "--bits-per-key N"; }

  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(auto writer, Writer(params));
    writer.hashes = CollapsedBloomHashes(keys, writer.policy.flavor);
    return std::move(writer).Take();
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(auto writer, Writer(params));
    return StartCounting(std::move(writer), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t b, WholeBits(params, kBloomBits));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, ExpectedKeys(params));
    BLOOMCODEC_ASSIGN_OR_RETURN(BloomPlan plan, PlanBloom(Policy(b), n));
    SizeInfo info;
    info.bits_per_key = b;
    info.hash_count = BloomProbeCount(b, probes_);
    info.bits = static_cast<std::int64_t>(std::uint64_t{plan.num_lines} * 512);
    info.file_bytes = static_cast<std::int64_t>(plan.filter_bytes);
    if (!plan.writes_filter) {
      info.warnings.push_back(
          "0 keys: Pebble before CockroachDB 26.2 writes a 0-byte filter block, 26.2 none");
    }
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    line = std::to_string(BloomKeyHash(key, HashFlavor::kSignedTail));
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    return ProbeFilter<BloomReader>(file, source, keys, answers);
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectBloom(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view) const override { return DumpBloom(file); }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpBloom(dump, source);
  }

 private:
  BloomPolicy Policy(std::uint32_t bits) const {
    BloomPolicy p;
    p.bits_per_key = bits;
    p.probes = probes_;
    return p;
  }
  Result<BloomWriter> Writer(const FilterParams& params) const {
    BLOOMCODEC_RETURN_IF_ERROR(NoExpectedKeys(params));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t b, WholeBits(params, kBloomBits));
    return BloomWriter{Policy(b), {}};
  }

  BloomProbes probes_;
};

// ----- pebble-binaryfuse -----

struct FuseWriter {
  std::uint32_t bits;
  std::vector<std::uint64_t> hashes;
  void Add(std::span<const ByteSpan> keys) { AppendBinaryFuseHashes(keys, hashes); }
  Result<ByteVector> Take() && {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> f,
                                BuildBinaryFuseFromHashes(bits, hashes));
    if (f) return std::move(*f);
    if (hashes.empty()) return Status::Refused("no keys: Pebble writes no binary fuse filter");
    if (hashes.size() > kBinaryFuseMaxHashes) {
      return Status::Refused(std::to_string(hashes.size()) +
                             " distinct hashes: Pebble writes no binary fuse filter for more than "
                             "10,000,000");
    }
    return Status::Refused("the construction failed for 1024 seeds: Pebble writes no filter");
  }
};

class BinaryFuseFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return kBinaryFuseFormatName; }
  std::string_view summary() const override {
    return "one Pebble table filter, fullfilter.binaryfuse (CockroachDB 26.2's binary fuse "
           "filter)";
  }
  std::string_view params_help() const override { return "--bits-per-key 4|8|10|12|16"; }

  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(auto writer, Writer(params));
    writer.hashes = CollapsedBinaryFuseHashes(keys);
    return std::move(writer).Take();
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(auto writer, Writer(params));
    return StartCounting(std::move(writer), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t b, Bits(params));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, ExpectedKeys(params));
    SizeInfo info;
    info.bits_per_key = b;
    if (n == 0 || n > kBinaryFuseMaxHashes) {
      info.writes_filter_file = false;
      info.warnings.push_back(n == 0 ? "0 keys: Pebble writes no binary fuse filter"
                                     : "more than 10,000,000 keys: Pebble writes no filter");
      return info;
    }
    // Whichever attempt succeeds, the array keeps its size (halving L doubles the segments).
    const BinaryFuseGeometry g = BinaryFuseInitialGeometry(static_cast<std::uint32_t>(n));
    info.hash_count = 3;
    info.bits = static_cast<std::int64_t>(g.entries() * b);
    info.file_bytes =
        static_cast<std::int64_t>(FingerprintArrayBytes(g.entries(), b) + kBinaryFuseTrailerBytes);
    info.warnings.push_back("binary fuse: " + std::to_string(g.entries()) + " fingerprints of " +
                            std::to_string(b) + " bits in " + std::to_string(g.segment_count + 2) +
                            " segments of " + std::to_string(g.segment_length) +
                            "; hash_count is the slots per key; bits_per_key is the fingerprint "
                            "width");
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    line = std::to_string(BinaryFuseHash(key));
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    return ProbeFilter<BinaryFuseReader>(file, source, keys, answers);
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectBinaryFuse(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view) const override {
    return DumpBinaryFuse(file);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpBinaryFuse(dump, source);
  }

 private:
  static Result<std::uint32_t> Bits(const FilterParams& params) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t b, WholeBits(params, kFuseBits));
    if (!IsFingerprintBits(b)) {
      return Status::InvalidArgument("--bits-per-key " + std::to_string(b) + ": Pebble's binary " +
                                     "fuse filters take " + std::string(kFuseBits));
    }
    return b;
  }
  static Result<FuseWriter> Writer(const FilterParams& params) {
    BLOOMCODEC_RETURN_IF_ERROR(NoExpectedKeys(params));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t b, Bits(params));
    return FuseWriter{b, {}};
  }
};

}  // namespace

const FormatCodec* BloomCodec(BloomProbes probes) {
  static const BloomFormat rounded(BloomProbes::kRounded);
  static const BloomFormat table(BloomProbes::kTable);
  return probes == BloomProbes::kTable ? &table : &rounded;
}

const FormatCodec* BinaryFuseCodec() {
  static const BinaryFuseFormat codec;
  return &codec;
}

}  // namespace bloomcodec::pebble
