// inspect / dump / undump of one LevelDB bloom filter and of a filter block.
#include <algorithm>
#include <cmath>
#include <string>

#include "bloomcodec/bit_view.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/leveldb/bloom.h"
#include "codec/byte_writer.h"
#include "inspect_support.h"
#include "leveldb/basho_bloom.h"
#include "leveldb/inspect.h"

namespace bloomcodec::leveldb {
namespace {

// The largest bits_per_key considered when inverting k = floor(0.69 b) clamped to [1, 30]; every
// b >= 44 gives 30, so the range for k = 30 is open-ended.
constexpr int kLargestBitsPerKeyTried = 64;

// Bit positions are a 32-bit hash mod bits: no position at or beyond 2^32 is ever used.
constexpr std::uint64_t kReachableBits = std::uint64_t{1} << 32;

// Which integer bits_per_key values give stored k, the key counts that bit count implies
// (CreateFilter allocates max(64, n * b) bits rounded up to a byte), and the false-positive rate
// each end of that range promises.
Document PolicyFacts(std::uint32_t k, std::uint64_t bits) {
  Document facts;
  int lo = -1, hi = -1;
  for (int b = 1; b <= kLargestBitsPerKeyTried; ++b) {
    if (BloomPolicy::Current(b).probes() != static_cast<int>(k)) continue;
    if (lo < 0) lo = b;
    hi = b;
  }
  if (lo < 0) {
    facts["note"] = "no bits_per_key of NewBloomFilterPolicy gives k = " + std::to_string(k);
    return facts;
  }
  const bool open_ended = hi == kLargestBitsPerKeyTried;
  facts["bits_per_key_min"] = lo;
  facts["bits_per_key_max"] = open_ended ? Document(nullptr) : Document(hi);
  // n * b lies in (bits - 8, bits], except for the 64-bit minimum, which any n * b <= 64 gets.
  facts["sized_for_keys_max"] = bits / static_cast<std::uint64_t>(lo);
  facts["sized_for_keys_min"] =
      bits <= 64 ? 0 : (open_ended ? 1 : (bits - 8) / static_cast<std::uint64_t>(hi) + 1);
  facts["promised_false_positive_rate_max"] =
      JsonNumber(ExpectedFalsePositiveRate(bits, k, static_cast<double>(bits) / lo));
  if (!open_ended) {
    facts["promised_false_positive_rate_min"] =
        JsonNumber(ExpectedFalsePositiveRate(bits, k, static_cast<double>(bits) / hi));
  }
  return facts;
}

// One filter's fields: its size, k, the reader's edge cases, fill statistics, policy facts.
void AddBloomFields(Document& doc, ByteSpan filter, HashFlavor flavor, bool goleveldb) {
  const BloomFilterView view(filter, flavor);
  doc["filter_bytes"] = filter.size();
  if (filter.size() < 2) {
    doc["reader"] = "shorter than 2 bytes: every key answers absent";
    return;
  }
  const std::uint32_t k = filter.back();
  doc["hash_count"] = k;
  if (k == 0 || k > static_cast<std::uint32_t>(kMaxProbes)) {
    doc["reader"] = k == 0 ? "k = 0: every key answers present"
                           : "k > 30 (reserved encoding): every key answers present";
  }
  // LevelDB's bit positions are `h % bits` with a 32-bit h: in a filter of more than 2^32 bits
  // (a bit array over 512 MiB) only the first 2^32 can ever be set by CreateFilter or tested by
  // KeyMayMatch. The fill statistics are those of the reachable bits; the rest is noted.
  const std::uint64_t bits = view.bit_count();
  if (goleveldb && !GoLevelDbModulusIsLevelDbs(filter)) {
    // goleveldb's modulus is the bit count's low 32 bits: only those bits are ever probed.
    const std::uint64_t go_bits = bits & 0xffffffffu;
    const std::uint64_t go_set =
        BitView<BitOrder::kLsbFirstBytes>(filter.first(go_bits / 8)).PopCount();
    AddFillStatistics(doc, go_bits, go_set, k);
    doc["bits_total"] = bits;
    doc["bits_unreachable"] = bits - go_bits;
    doc["note"] =
        go_bits == 0
            ? "goleveldb's modulus is (length - 1) * 8 mod 2^32 = 0: its "
              "Contains divides by zero (panics) for every key it probes"
            : "goleveldb's modulus is (length - 1) * 8 mod 2^32 = " + std::to_string(go_bits) +
                  ": only those bits are probed; the fill statistics count "
                  "them only";
    doc["policy"] = PolicyFacts(k, go_bits);
    return;
  }
  if (bits > kReachableBits) {
    const std::uint64_t reachable_set =
        BitView<BitOrder::kLsbFirstBytes>(filter.first(kReachableBits / 8)).PopCount();
    AddFillStatistics(doc, kReachableBits, reachable_set, k);
    doc["bits_total"] = bits;
    doc["bits_unreachable"] = bits - kReachableBits;
    doc["note"] = "LevelDB's bit positions are a 32-bit hash mod " + std::to_string(bits) +
                  ": only the first 2^32 bits can ever be set or probed; the last " +
                  std::to_string(bits - kReachableBits) +
                  " bits are unreachable and the fill statistics count the reachable bits only";
  } else {
    AddFillStatistics(doc, bits, view.bits_set(), k);
  }
  doc["policy"] = PolicyFacts(k, bits);
}

Result<FilterBlockLayout> Layout(ByteSpan block, std::string_view source, std::uint64_t base) {
  return ParseFilterBlockLayout(block, source, base);
}

}  // namespace

std::optional<double> KeysAllowedByPolicy(std::uint32_t k, std::uint64_t bits) {
  // The smallest bits_per_key giving k allows the most keys in these bits (inspect's
  // sized_for_keys_max): the loosest bound, so no policy that gives k is called overfilled.
  for (int b = 1; b <= kLargestBitsPerKeyTried; ++b) {
    if (BloomPolicy::Current(b).probes() == static_cast<int>(k)) {
      return static_cast<double>(bits / static_cast<std::uint64_t>(b));
    }
  }
  return std::nullopt;
}

std::string_view BloomFormatName(HashFlavor flavor, bool goleveldb) {
  if (goleveldb) return "goleveldb-bloom";
  return flavor == HashFlavor::kSignedTail ? "leveldb-bloom-legacy" : "leveldb-bloom";
}

Result<Document> InspectBloom(ByteSpan file, std::string_view, HashFlavor flavor, bool goleveldb) {
  Document doc;
  doc["format"] = std::string(BloomFormatName(flavor, goleveldb));
  doc["policy_name"] = std::string(
      flavor == HashFlavor::kSignedTail || goleveldb ? kLegacyPolicyName : kCurrentPolicyName);
  AddBloomFields(doc, file, flavor, goleveldb);
  // The bit array: every byte but the last (k).
  if (file.size() >= 2) AddFillProfile(doc, file, file.first(file.size() - 1));
  return doc;
}

Result<Document> DumpBloom(ByteSpan file, std::string_view, HashFlavor flavor, bool goleveldb) {
  Document doc = DumpHead(BloomFormatName(flavor, goleveldb));
  doc["filter_bytes"] = file.size();
  // Any bytes are a filter to the reader: the last one is k, the rest the bit array.
  if (!file.empty()) doc["hash_count"] = file.back();
  doc["bits_base64"] = ToBase64(file.first(file.empty() ? 0 : file.size() - 1));
  return doc;
}

Result<ByteVector> UndumpBloom(const Document& dump, std::string_view source, HashFlavor flavor,
                               bool goleveldb) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, BloomFormatName(flavor, goleveldb), source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, DumpBase64(dump, "bits_base64", source));
  if (dump.contains("hash_count")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t k, DumpInt(dump, "hash_count", source));
    if (k < 0 || k > 255) return BadDumpField(source, "hash_count", "a byte (0 .. 255)");
    out.push_back(static_cast<std::uint8_t>(k));
  } else if (!out.empty()) {
    return BadDumpField(source, "hash_count", "present when the bit array is not empty");
  }
  return out;
}

// A bloom2 filter of Basho's LevelDB: its k as Basho reads it, the fill of the P bits probes reach.
void AddBloom2Fields(Document& doc, ByteSpan filter) {
  doc["filter_bytes"] = filter.size();
  if (filter.size() < 2) {
    doc["reader"] = "shorter than 2 bytes: every key answers absent";
    return;
  }
  const auto k = static_cast<std::int8_t>(filter.back());
  doc["hash_count"] = k;
  if (k <= 0 || k > 30) {
    doc["reader"] = k == 0 ? "k = 0: every key answers present"
                           : "k outside 1..30 (a signed byte): every key answers present";
  }
  const Bloom2Fill fill = Bloom2FillOf(filter);
  AddFillStatistics(doc, fill.bits, fill.bits_set, fill.hash_count);
  doc["bits_total"] = (filter.size() - 1) * std::uint64_t{8};
}

Result<Document> InspectFilterBlockAt(ByteSpan block, std::string_view source,
                                      std::uint64_t base_offset, HashFlavor flavor, bool goleveldb,
                                      BloomVariant variant) {
  const bool bloom2 = variant == BloomVariant::kBasho2;
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterBlockLayout layout, Layout(block, source, base_offset));
  Document doc;
  doc["block_bytes"] = block.size();
  doc["base_lg"] = layout.base_lg;
  doc["array_offset"] = layout.array_offset;
  doc["num_filters"] = layout.filters.size();
  doc["num_empty_filters"] = layout.num_empty();
  doc["filter_format"] =
      bloom2 ? std::string("basho-bloom2") : std::string(BloomFormatName(flavor, goleveldb));
  double total_keys = 0;
  bool total_defined = true;
  Document filters = Document::array();
  for (std::size_t i = 0; i < layout.filters.size(); ++i) {
    const FilterRange& r = layout.filters[i];
    Document f;
    f["index"] = i;
    f["offset"] = r.start;
    // Data blocks starting in [i << base_lg, (i + 1) << base_lg) are answered by filter i.
    f["data_offsets_from"] = std::uint64_t{i} << layout.base_lg;
    f["data_offsets_to"] = std::uint64_t{i + 1} << layout.base_lg;
    if (r.empty()) {
      f["filter_bytes"] = 0;
      f["empty"] = true;
    } else {
      if (bloom2) {
        AddBloom2Fields(f, block.subspan(r.start, r.size()));
      } else {
        AddBloomFields(f, block.subspan(r.start, r.size()), flavor, goleveldb);
      }
      if (f.contains("estimated_keys") && f["estimated_keys"].is_number()) {
        total_keys += f["estimated_keys"].get<double>();
      } else if (f.contains("bits")) {
        total_defined = false;
      }
    }
    filters.push_back(std::move(f));
  }
  doc["estimator"] = std::string(kEstimatorName);
  doc["estimated_keys_total"] = total_defined ? JsonNumber(total_keys) : Document(nullptr);
  doc["filters"] = std::move(filters);
  return doc;
}

Result<Document> InspectFilterBlock(ByteSpan file, std::string_view source) {
  Document doc;
  doc["format"] = "leveldb-filter-block";
  doc["policy_name"] = std::string(kCurrentPolicyName);
  BLOOMCODEC_ASSIGN_OR_RETURN(Document fields,
                              InspectFilterBlockAt(file, source, 0, HashFlavor::kUnsignedTail));
  doc.update(fields);
  return doc;
}

Result<Document> FilterBlockDumpFields(ByteSpan block, std::string_view source,
                                       std::uint64_t base_offset) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterBlockLayout layout, Layout(block, source, base_offset));
  Document doc;
  doc["base_lg"] = layout.base_lg;
  doc["array_offset"] = layout.array_offset;
  Document filters = Document::array();
  for (const FilterRange& r : layout.filters) {
    Document f;
    f["offset"] = r.start;
    f["base64"] = ToBase64(block.subspan(r.start, r.size()));
    filters.push_back(std::move(f));
  }
  doc["filters"] = std::move(filters);
  return doc;
}

Result<Document> DumpFilterBlock(ByteSpan file, std::string_view source) {
  Document doc = DumpHead("leveldb-filter-block");
  BLOOMCODEC_ASSIGN_OR_RETURN(Document fields, FilterBlockDumpFields(file, source, 0));
  doc.update(fields);
  return doc;
}

// The filters tile [0, array_offset) in order (the strict layout every writer produces), so the
// block is their concatenation, the offsets, the array offset and base_lg; offsets that do not
// agree with the filters' sizes are refused rather than written.
Result<ByteVector> FilterBlockFromFields(const Document& fields, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t base_lg, DumpInt(fields, "base_lg", source));
  if (base_lg < 0 || base_lg > 63) return BadDumpField(source, "base_lg", "0 .. 63");
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t array_offset, DumpInt(fields, "array_offset", source));
  auto it = fields.find("filters");
  if (it == fields.end() || !it->is_array()) {
    return BadDumpField(source, "filters", "an array of {offset, base64}");
  }
  ByteVector out;
  std::vector<std::uint32_t> offsets;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Document& f = (*it)[i];
    const std::string name = "filters[" + std::to_string(i) + "]";
    if (!f.is_object()) return BadDumpField(source, name, "an object {offset, base64}");
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t offset, DumpInt(f, "offset", source));
    if (offset != static_cast<std::int64_t>(out.size())) {
      return BadDumpField(source, name + ".offset",
                          std::to_string(out.size()) +
                              " (the sum of the sizes of the filters before it)");
    }
    if (f.contains("file") && !f.contains("base64")) {
      return BadDumpField(
          source, name, "its bytes as base64 (the files a split's list names are read by convert)");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector bytes, DumpBase64(f, "base64", source));
    offsets.push_back(static_cast<std::uint32_t>(out.size()));
    out.insert(out.end(), bytes.begin(), bytes.end());
    if (out.size() > UINT32_MAX) return BadDumpField(source, "filters", "at most 4 GiB in all");
  }
  if (array_offset != static_cast<std::int64_t>(out.size())) {
    return BadDumpField(source, "array_offset",
                        std::to_string(out.size()) + " (the total size of the filters)");
  }
  ByteWriter w(out);
  for (std::uint32_t o : offsets) w.PutLittleU32(o);
  w.PutLittleU32(static_cast<std::uint32_t>(array_offset));
  w.PutU8(static_cast<std::uint8_t>(base_lg));
  return out;
}

Result<ByteVector> UndumpFilterBlock(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "leveldb-filter-block", source));
  return FilterBlockFromFields(dump, source);
}

}  // namespace bloomcodec::leveldb
