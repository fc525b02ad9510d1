#include "inspect_support.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "bloomcodec/filter_stats.h"
#include "codec/popcount.h"

namespace bloomcodec {

Document JsonNumber(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

void AddFillStatistics(Document& doc, std::uint64_t bits, std::uint64_t bits_set,
                       std::uint32_t hash_count) {
  const FillStatistics s = ComputeFillStatistics(bits, bits_set, hash_count);
  doc["bits"] = bits;
  doc["bits_set"] = bits_set;
  doc["fill_ratio"] = s.fill_ratio;
  doc["estimator"] = std::string(kEstimatorName);
  doc["estimated_keys"] = JsonNumber(s.estimated_keys);
  doc["estimated_false_positive_rate"] = JsonNumber(s.false_positive_rate);
  if (std::isnan(s.estimated_keys)) {
    doc["estimate_note"] = "k = 0: every key answers present and the fill carries no key count";
  } else if (std::isinf(s.estimated_keys)) {
    doc["estimate_note"] = "every bit is set: the filter is saturated and any key count fits";
  }
}

void AddFillProfile(Document& doc, ByteSpan file, ByteSpan bits) {
  if (bits.empty()) return;
  const std::size_t n = std::min(kFillProfileBuckets, bits.size());
  Document buckets = Document::array();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t begin = i * bits.size() / n;
    const std::size_t end = (i + 1) * bits.size() / n;
    const ByteSpan part = bits.subspan(begin, end - begin);
    const double share =
        static_cast<double>(PopCountBytes(part)) / static_cast<double>(8 * part.size());
    buckets.push_back(std::round(share * 1000) / 1000);
  }
  Document profile;
  // The views of a filter point into the file they were parsed from.
  const bool inside =
      bits.data() >= file.data() && bits.data() + bits.size() <= file.data() + file.size();
  profile["offset"] = inside ? Document(bits.data() - file.data()) : Document(nullptr);
  profile["bytes"] = bits.size();
  profile["buckets"] = std::move(buckets);
  doc["fill_profile"] = std::move(profile);
}

Document DumpHead(std::string_view format) {
  Document doc;
  doc["format"] = std::string(format);
  doc["dump_version"] = kDumpVersion;
  return doc;
}

Status BadDumpField(std::string_view source, std::string_view field, std::string_view expected) {
  return Status::CorruptFile(std::string(source), "dump field '" + std::string(field) +
                                                      "': expected " + std::string(expected));
}

Status CheckDumpHead(const Document& dump, std::string_view format, std::string_view source) {
  if (!dump.is_object()) return Status::CorruptFile(std::string(source), "a dump is a JSON object");
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string name, DumpString(dump, "format", source));
  if (name != format) {
    return BadDumpField(source, "format",
                        "\"" + std::string(format) + "\", found \"" + name + "\"");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t version, DumpInt(dump, "dump_version", source));
  if (version != kDumpVersion) {
    return BadDumpField(source, "dump_version", std::to_string(kDumpVersion));
  }
  return {};
}

Result<std::int64_t> DumpInt(const Document& dump, std::string_view field,
                             std::string_view source) {
  auto it = dump.find(std::string(field));
  if (it == dump.end()) return BadDumpField(source, field, "an integer (the field is missing)");
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(INT64_MAX))
      return BadDumpField(source, field, "a 64-bit integer");
    return static_cast<std::int64_t>(v);
  }
  if (!it->is_number_integer()) return BadDumpField(source, field, "an integer");
  return it->get<std::int64_t>();
}

Result<std::string> DumpString(const Document& dump, std::string_view field,
                               std::string_view source) {
  auto it = dump.find(std::string(field));
  if (it == dump.end()) return BadDumpField(source, field, "a string (the field is missing)");
  if (!it->is_string()) return BadDumpField(source, field, "a string");
  return it->get<std::string>();
}

Result<ByteVector> DumpBase64(const Document& dump, std::string_view field,
                              std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string text, DumpString(dump, field, source));
  ByteVector out;
  if (!FromBase64(text, out))
    return BadDumpField(source, field, "base64 (standard alphabet, padded)");
  return out;
}

Result<ByteVector> DumpOptionalBase64(const Document& dump, std::string_view field,
                                      std::string_view source) {
  if (!dump.contains(std::string(field))) return ByteVector{};
  return DumpBase64(dump, field, source);
}

}  // namespace bloomcodec
