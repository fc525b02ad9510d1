#include "formats/leveldb/family.h"

#include <climits>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/hash.h"
#include "leveldb/inspect.h"

namespace bloomcodec::leveldb {

const FormatCodec* TableFormatCodec();  // table/format_codecs.cc

namespace {

// NewBloomFilterPolicy takes an int: anything else would be silently truncated by the original,
// so it is refused here rather than guessed at.
Result<int> BitsPerKey(const FilterParams& params) {
  if (params.fp_chance || params.buckets_per_element) {
    return Status::InvalidArgument(
        "LevelDB filters take --bits-per-key only (not --fp-chance / --buckets-per-element)");
  }
  if (!params.bits_per_key) {
    return Status::InvalidArgument("LevelDB filters need --bits-per-key N (an integer >= 0)");
  }
  const double b = *params.bits_per_key;
  if (!std::isfinite(b) || b != std::floor(b) || b < 0 || b > INT_MAX) {
    return Status::InvalidArgument("--bits-per-key must be an integer between 0 and " +
                                   std::to_string(INT_MAX) + " (LevelDB's policy takes an int)");
  }
  return static_cast<int>(b);
}

// CreateFilter computes n * bits_per_key as an int product; past INT_MAX the original overflows
// (undefined behaviour, in practice a huge allocation that fails), so such sizes are refused.
Status CheckProductFitsInt(std::uint64_t num_keys, int bits_per_key) {
  if (num_keys > INT_MAX ||
      (bits_per_key > 0 && num_keys > static_cast<std::uint64_t>(INT_MAX / bits_per_key))) {
    return Status::Refused(
        "LevelDB computes keys * bits_per_key in a 32-bit int: " + std::to_string(num_keys) +
        " * " + std::to_string(bits_per_key) + " overflows it");
  }
  return {};
}

Status HashLine(HashFlavor flavor, ByteSpan key, std::string& line) {
  line = std::to_string(BloomHash(key, flavor));
  return {};
}

// The writers of one bloom filter's bytes: LevelDB 1.18+, LevelDB <= 1.17, goleveldb.
enum class BloomWriter { kLevelDb, kLevelDb117, kGoLevelDb };

// goleveldb computes keys * bits_per_key modulo 2^32; a few products make its rounding wrap to
// an empty bit array, and its generator then divides by zero (a Go panic): refused.
Status CheckGoLevelDbGeometry(const BloomGeometry& g, std::uint64_t num_keys, int bits_per_key) {
  if (!g.go_panics) return {};
  return Status::Refused("goleveldb computes keys * bits_per_key in 32 bits: " +
                         std::to_string(num_keys) + " * " + std::to_string(bits_per_key) +
                         " modulo 2^32 rounds up to 0 bytes and its generator divides by zero "
                         "(panics)");
}

class BloomFormat final : public FormatCodec {
 public:
  explicit BloomFormat(BloomWriter writer) : writer_(writer) {}

  std::string_view name() const override {
    switch (writer_) {
      case BloomWriter::kLevelDb117: return "leveldb-bloom-legacy";
      case BloomWriter::kGoLevelDb: return "goleveldb-bloom";
      case BloomWriter::kLevelDb: break;
    }
    return "leveldb-bloom";
  }
  std::string_view summary() const override {
    switch (writer_) {
      case BloomWriter::kLevelDb117:
        return "one LevelDB <= 1.17 bloom filter as written on x86 (leveldb.BuiltinBloomFilter)";
      case BloomWriter::kGoLevelDb:
        return "one goleveldb bloom filter: LevelDB's layout and 1.18's hash under 1.17's name "
               "(leveldb.BuiltinBloomFilter), sized in 32-bit integers";
      case BloomWriter::kLevelDb: break;
    }
    return "one LevelDB 1.18+ bloom filter: bit array + k byte (leveldb.BuiltinBloomFilter2)";
  }
  std::string_view params_help() const override { return "--bits-per-key N"; }

  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.expected_keys) {
      return Status::InvalidArgument(
          "--expected-keys does not apply to LevelDB: its filter is sized from the keys given");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, BitsPerKey(params));
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(keys.size(), b));
    ByteVector out;
    AppendBloomFilter(Policy(b), keys, out);
    return out;
  }

  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    if (params.expected_keys) return Build(KeyList(), params).status();  // the same refusal
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, BitsPerKey(params));
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(key_count, b));
    return StartCounting(BloomFilterWriter(Policy(b), key_count), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, BitsPerKey(params));
    if (!params.expected_keys || *params.expected_keys < 0) {
      return Status::InvalidArgument("size needs --expected-keys N (an integer >= 0)");
    }
    const auto n = static_cast<std::uint64_t>(*params.expected_keys);
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(n, b));
    const BloomGeometry g = GeometryFor(Policy(b), n);
    SizeInfo info;
    info.hash_count = g.probes;
    info.bits_per_key = b;
    info.bits = static_cast<std::int64_t>(g.bits);
    info.file_bytes = static_cast<std::int64_t>(g.filter_bytes);
    return info;
  }

  Status Hash(ByteSpan key, std::string& line) const override {
    return HashLine(Flavor(), key, line);
  }

  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    if (writer_ == BloomWriter::kGoLevelDb && !GoLevelDbModulusIsLevelDbs(file)) {
      // Over 512 MiB goleveldb's modulus is the bit count's low 32 bits.
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::optional<bool> answer = GoLevelDbKeyMayMatch(keys[i], file);
        if (!answer) {
          return Status::Refused(std::string(source) + ": a filter of " +
                                 std::to_string(file.size()) +
                                 " bytes: goleveldb's modulus (length - 1) * 8 mod 2^32 is 0 and "
                                 "its Contains divides by zero (panics)");
        }
        answers[i] = *answer ? 1 : 0;
      }
      return {};
    }
    // Any bytes are a valid filter to the original reader (short ones answer 0, odd k bytes 1).
    BloomKeyMayMatchBatch(Flavor(), keys, file, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectBloom(file, source, Flavor(), writer_ == BloomWriter::kGoLevelDb);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpBloom(file, source, Flavor(), writer_ == BloomWriter::kGoLevelDb);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpBloom(dump, source, Flavor(), writer_ == BloomWriter::kGoLevelDb);
  }

 private:
  HashFlavor Flavor() const {
    return writer_ == BloomWriter::kLevelDb117 ? HashFlavor::kSignedTail
                                               : HashFlavor::kUnsignedTail;
  }
  BloomPolicy Policy(int b) const {
    switch (writer_) {
      case BloomWriter::kLevelDb117: return BloomPolicy::Legacy117(b);
      case BloomWriter::kGoLevelDb: return BloomPolicy::GoLevelDb(b);
      case BloomWriter::kLevelDb: break;
    }
    return BloomPolicy::Current(b);
  }
  // LevelDB's int product must not overflow; goleveldb's wraps, except where it would panic.
  Status CheckSize(std::uint64_t num_keys, int b) const {
    if (writer_ != BloomWriter::kGoLevelDb) return CheckProductFitsInt(num_keys, b);
    return CheckGoLevelDbGeometry(GeometryFor(Policy(b), num_keys), num_keys, b);
  }

  BloomWriter writer_;
};

// A whole filter block on its own. Without a table there are no data-block offsets, so build puts
// every key into the data block at offset 0 and probe asks the filter serving offset 0.
class FilterBlockFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "leveldb-filter-block"; }
  std::string_view summary() const override {
    return "a whole LevelDB filter block (filters, offset array, base_lg); build/probe use the "
           "filter of the data block at offset 0";
  }
  std::string_view params_help() const override { return "--bits-per-key N"; }

  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.expected_keys) {
      return Status::InvalidArgument(
          "--expected-keys does not apply to LevelDB: its filter is sized from the keys given");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, BitsPerKey(params));
    BLOOMCODEC_RETURN_IF_ERROR(CheckProductFitsInt(keys.size(), b));
    FilterBlockBuilder builder(BloomPolicy::Current(b));
    builder.StartBlock(0);
    for (std::size_t i = 0; i < keys.size(); ++i) builder.AddKey(keys[i]);
    return builder.Finish();
  }

  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, BitsPerKey(params));
    if (!params.expected_keys || *params.expected_keys < 0) {
      return Status::InvalidArgument("size needs --expected-keys N (an integer >= 0)");
    }
    const auto n = static_cast<std::uint64_t>(*params.expected_keys);
    BLOOMCODEC_RETURN_IF_ERROR(CheckProductFitsInt(n, b));
    const BloomGeometry g = GeometryFor(BloomPolicy::Current(b), n);
    SizeInfo info;
    info.hash_count = g.probes;
    info.bits_per_key = b;
    // No keys: no filter at all, just the 5-byte trailer. Otherwise one filter, its u32 offset,
    // the array offset and base_lg.
    info.bits = n == 0 ? 0 : static_cast<std::int64_t>(g.bits);
    info.file_bytes = n == 0 ? 5 : static_cast<std::int64_t>(g.filter_bytes) + 9;
    return info;
  }

  Status Hash(ByteSpan key, std::string& line) const override {
    return HashLine(HashFlavor::kUnsignedTail, key, line);
  }

  Status Probe(ByteSpan file, std::string_view, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    // The lenient reader, as LevelDB reads it: malformed blocks answer "may match", not errors.
    FilterBlockReader(file, HashFlavor::kUnsignedTail).KeyMayMatchBatch(0, keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectFilterBlock(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpFilterBlock(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpFilterBlock(dump, source);
  }
};

}  // namespace

const FormatCodec* Codec(FormatId id) {
  static const BloomFormat bloom(BloomWriter::kLevelDb);
  static const BloomFormat bloom_legacy(BloomWriter::kLevelDb117);
  static const BloomFormat bloom_goleveldb(BloomWriter::kGoLevelDb);
  static const FilterBlockFormat filter_block;
  switch (id) {
    case FormatId::kBloom: return &bloom;
    case FormatId::kBloomLegacy: return &bloom_legacy;
    case FormatId::kGoLevelDbBloom: return &bloom_goleveldb;
    case FormatId::kFilterBlock: return &filter_block;
    case FormatId::kTable: return TableFormatCodec();
  }
  return nullptr;
}

std::span<const FormatCodec* const> Formats() {
  static const FormatCodec* const formats[] = {
      Codec(FormatId::kBloom), Codec(FormatId::kBloomLegacy), Codec(FormatId::kGoLevelDbBloom),
      Codec(FormatId::kFilterBlock), Codec(FormatId::kTable)};
  return formats;
}

}  // namespace bloomcodec::leveldb
