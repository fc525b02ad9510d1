// The Cassandra 0.7 - 1.1 filter formats (and the list of all Cassandra formats) as the command
// line sees them (docs/cli.md).
#include "formats/cassandra/family.h"

#include <climits>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/descriptor.h"
#include "cassandra/format_codecs.h"
#include "cassandra/inspect.h"
#include "cassandra/murmur3/inspect.h"

namespace bloomcodec::cassandra {

bool ClaimsKind(std::string_view path, FilterKind kind) {
  Result<Descriptor> d = ParseDescriptor(path);
  return d.ok() && d->component == "Filter.db" && d->filter_kind() == kind;
}

std::int64_t ElementCount(std::uint64_t keys, const FilterParams& params) {
  if (params.expected_keys) return *params.expected_keys;
  return static_cast<std::int64_t>(keys);
}

Status CheckOverload(const FilterParams& params) {
  if (params.bits_per_key) {
    return Status::InvalidArgument(
        "Cassandra filters take --fp-chance P or --buckets-per-element N, not --bits-per-key");
  }
  if (params.fp_chance.has_value() == params.buckets_per_element.has_value()) {
    return Status::InvalidArgument(
        "give exactly one of --fp-chance P or --buckets-per-element N (Cassandra's two getFilter "
        "overloads; its SSTable writer uses --buckets-per-element 15)");
  }
  if (params.buckets_per_element &&
      (*params.buckets_per_element < INT32_MIN || *params.buckets_per_element > INT32_MAX)) {
    return Status::InvalidArgument("--buckets-per-element must fit a Java int");
  }
  return {};
}

namespace {

// The largest filter the header can describe: W = 2^31 - 1 words.
constexpr std::int64_t kMaxBits = std::int64_t{INT32_MAX} * 64;

Result<FilterSpec> V10Spec(std::int64_t n, const FilterParams& params) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOverload(params));
  if (params.fp_chance) return SizeForFpChance(n, *params.fp_chance);
  return SizeForBucketsPerElement(n, static_cast<std::int32_t>(*params.buckets_per_element));
}

Result<LegacyFilterSpec> LegacySpec(std::int64_t n, const FilterParams& params) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOverload(params));
  if (params.fp_chance) return LegacySizeForFpChance(n, *params.fp_chance);
  return LegacySizeForBucketsPerElement(n, static_cast<std::int32_t>(*params.buckets_per_element));
}

// n * bpe + 20 without Java's wraparound, saturated: what the caller actually asked for.
std::int64_t TrueRequestedBits(std::int64_t n, std::int32_t bpe) {
  if (n < 0 || bpe < 0) return -1;
  if (bpe > 0 && n > (INT64_MAX - kExcessBits) / bpe) return INT64_MAX;
  return n * bpe + kExcessBits;
}

Result<SizeInfo> V10SizeInfo(std::int64_t n, const FilterSpec& spec) {
  if (spec.word_count < 0) {
    // The OpenBitSet constructor allocates the (truncated, negative) word count.
    return Status::Refused("NegativeArraySizeException: " + std::to_string(spec.word_count) +
                           " (getFilter(" + std::to_string(n) + ") asks for " +
                           std::to_string(spec.requested_bits) + " bits, int word count " +
                           std::to_string(spec.word_count) + ")");
  }
  SizeInfo info;
  info.hash_count = spec.hash_count;
  info.buckets_per_element = spec.buckets_per_element;
  info.words = spec.word_count;
  info.bits = spec.bit_count();
  info.file_bytes = spec.file_bytes();
  if (!spec.warning.empty()) info.warnings.push_back(spec.warning);
  if (spec.word_count == 0) {
    info.warnings.push_back(
        "word count 0: the original builds this filter but divides by zero "
        "on the first add or lookup");
  } else if (TrueRequestedBits(n, spec.buckets_per_element) > kMaxBits ||
             TrueRequestedBits(n, spec.buckets_per_element) < 0) {
    info.warnings.push_back(
        "the requested bit count does not fit an int word count; Java's "
        "wraparound/truncation gives " +
        std::to_string(spec.word_count) + " words");
  }
  return info;
}

Status HashLine64(ByteSpan key, std::string& line) {
  const KeyHashes64 h = HashKey64(key);
  line = std::to_string(h.h1) + "\t" + std::to_string(h.h2);
  return {};
}

class V10Format final : public FormatCodec {
 private:
  static Result<FilterSpec> BuildSpec(std::uint64_t keys, const FilterParams& params) {
    const std::int64_t n = ElementCount(keys, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, V10Spec(n, params));
    const std::int64_t wanted = TrueRequestedBits(n, spec.buckets_per_element);
    if (wanted > kMaxBits) {
      // Java would truncate the word count to an int and write a filter of the wrong size.
      return Status::Refused("getFilter(" + std::to_string(n) + ") needs " +
                             std::to_string(wanted) + " bits, more than a Filter.db holds (" +
                             std::to_string(kMaxBits) +
                             "); the original's int truncation "
                             "would give " +
                             std::to_string(spec.word_count) + " words");
    }
    return spec;
  }

 public:
  std::string_view name() const override { return "cassandra-1.0"; }
  std::string_view summary() const override {
    return "Cassandra Filter.db of SSTable versions f .. hf (0.7 - 1.1): i32 hash count, i32 word "
           "count, BE i64 words";
  }
  std::string_view params_help() const override {
    return "--fp-chance P | --buckets-per-element N (Cassandra's writer: 15)";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsKind(path, FilterKind::kV10);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, BuildSpec(keys.size(), params));
    return BuildV10Filter(keys, spec);
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, BuildSpec(key_count, params));
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Create(spec));
    return StartAdding(std::move(filter), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    const std::int64_t n = ElementCount(0, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, V10Spec(n, params));
    return V10SizeInfo(n, spec);
  }
  Status Hash(ByteSpan key, std::string& line) const override { return HashLine64(key, line); }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Parse(file, source));
    filter.MayContainBatch(keys, answers);
    return {};
  }
  Result<std::unique_ptr<FileProbe>> OpenProbe(ByteSpan file, std::string_view source,
                                               const ProbeOptions&) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Parse(file, source));
    return ProbeThrough(std::make_unique<V10Filter>(std::move(filter)));
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectV10Filter(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpV10Filter(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpV10Filter(dump, source);
  }
};

class LegacyFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "cassandra-legacy"; }
  std::string_view summary() const override {
    return "Cassandra Filter.db of SSTable versions c .. e: i32 hash count + Java-serialized "
           "java.util.BitSet";
  }
  std::string_view params_help() const override {
    return "--fp-chance P | --buckets-per-element N";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsKind(path, FilterKind::kLegacy);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec,
                                LegacySpec(ElementCount(keys.size(), params), params));
    return BuildLegacyFilter(keys, spec);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec, LegacySpec(ElementCount(0, params), params));
    if (spec.nbits < 0) {
      // java.util.BitSet(int nbits) throws for a negative size.
      return Status::Refused("NegativeArraySizeException: nbits < 0: " +
                             std::to_string(spec.nbits));
    }
    SizeInfo info;
    info.hash_count = spec.hash_count;
    info.buckets_per_element = spec.buckets_per_element;
    info.words = spec.word_count;
    // BitSet.size() is an int: 64 * 2^25 words wraps negative in Java.
    info.bits = std::int64_t{spec.word_count} * 64;
    info.file_bytes =
        static_cast<std::int64_t>(LegacyFilter::kOverheadBytes) + std::int64_t{spec.word_count} * 8;
    if (!spec.warning.empty()) info.warnings.push_back(spec.warning);
    if (spec.word_count > LegacyFilter::kMaxWordCount) {
      info.warnings.push_back(
          "64 * words overflows Java's int BitSet.size(): the original's "
          "lookups on this filter fail");
    }
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    const KeyHashes32 h = HashKey32(key);
    line = std::to_string(h.h1) + "\t" + std::to_string(h.h2);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter filter, LegacyFilter::Parse(file, source));
    filter.MayContainBatch(keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectLegacyFilter(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpLegacyFilter(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpLegacyFilter(dump, source);
  }
};

class RowFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "cassandra-1.0-row"; }
  std::string_view summary() const override {
    return "the per-row column-name filter of a 1.0 Data.db row: i32 BE length, then a "
           "serialized filter (getFilter(columns, 4))";
  }
  std::string_view params_help() const override {
    return "(none: sized as Cassandra sizes a row's column filter; --expected-keys N for the "
           "estimated column count)";
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_RETURN_IF_ERROR(CheckNoParams(params));
    const std::int64_t n = ElementCount(keys.size(), params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec,
                                SizeForBucketsPerElement(n, kRowFilterBucketsPerElement));
    if (TrueRequestedBits(n, spec.buckets_per_element) > kMaxBits) {
      return Status::Refused("a row filter for " + std::to_string(n) +
                             " columns needs more bits than a filter holds");
    }
    return BuildRowFilter(keys, n);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_RETURN_IF_ERROR(CheckNoParams(params));
    const std::int64_t n = ElementCount(0, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec,
                                SizeForBucketsPerElement(n, kRowFilterBucketsPerElement));
    BLOOMCODEC_ASSIGN_OR_RETURN(SizeInfo info, V10SizeInfo(n, spec));
    info.file_bytes += 4;  // the length prefix
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override { return HashLine64(key, line); }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
    row.filter().MayContainBatch(keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectRowFilter(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpRowFilter(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpRowFilter(dump, source);
  }

 private:
  static Status CheckNoParams(const FilterParams& params) {
    if (params.fp_chance || params.buckets_per_element || params.bits_per_key) {
      return Status::InvalidArgument(
          "cassandra-1.0-row takes no sizing parameter: Cassandra sizes a row's column filter "
          "as getFilter(columns, 4); use --expected-keys N for an estimated column count");
    }
    return {};
  }
};

}  // namespace

const FormatCodec* Codec(FormatId id) {
  static const V10Format v10;
  static const LegacyFormat legacy;
  static const RowFormat row;
  switch (id) {
    case FormatId::kV10: return &v10;
    case FormatId::kLegacy: return &legacy;
    case FormatId::kJavaStrings: return JavaStringCodec();
    case FormatId::kV10Row: return &row;
    case FormatId::kMurmur3V12: return Murmur3Codec(Murmur3Layout::kOldOrderLongs);
    case FormatId::kMurmur3V30: return Murmur3Codec(Murmur3Layout::kNewOrderLongs);
    case FormatId::kMurmur3V40: return Murmur3Codec(Murmur3Layout::kRawBytes);
  }
  return nullptr;
}

std::span<const FormatCodec* const> Formats() {
  static const FormatCodec* const formats[] = {
      Codec(FormatId::kV10),       Codec(FormatId::kLegacy),     Codec(FormatId::kJavaStrings),
      Codec(FormatId::kV10Row),    Codec(FormatId::kMurmur3V12), Codec(FormatId::kMurmur3V30),
      Codec(FormatId::kMurmur3V40)};
  return formats;
}

}  // namespace bloomcodec::cassandra
