// Helpers shared by the formats' inspect, dump and undump (private to the library).
//
//   Document doc;
//   AddFillStatistics(doc, bits, bits_set, k);   // bits_set, fill_ratio, estimated_keys, ...
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t w, DumpInt(dump, "word_count", source));
//
// Dumps come from users (they may be edited by hand), so every field is read with its type
// checked: a missing or mistyped field is a Corrupt status naming the field, never an exception.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/format.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

// Version of the dump documents; Undump refuses other values.
inline constexpr int kDumpVersion = 1;
inline constexpr std::string_view kEstimatorName = "Swamidass-Baldi";

// A double as JSON: null when it is not finite (JSON has no infinity or NaN).
Document JsonNumber(double value);

// bits, bits_set, fill_ratio, estimator, estimated_keys, estimated_false_positive_rate (and
// estimate_note when the estimate is undefined), from bloomcodec::ComputeFillStatistics.
void AddFillStatistics(Document& doc, std::uint64_t bits, std::uint64_t bits_set,
                       std::uint32_t hash_count);

// How many buckets inspect's fill profile has (fewer when the bit array has fewer bytes).
inline constexpr std::size_t kFillProfileBuckets = 64;

// fill_profile: {offset, bytes, buckets}: the bit array `bits` (a part of `file`) cut into
// kFillProfileBuckets runs of whole bytes in storage order (bucket i: bytes
// [i * bytes / n, (i + 1) * bytes / n)), each bucket the share of its bits that are set, rounded
// to 3 decimals, so that a zeroed or saturated region shows (docs/cli.md, "inspect"). Nothing
// when `bits` is empty.
void AddFillProfile(Document& doc, ByteSpan file, ByteSpan bits);

// The common head of every dump: format and dump_version.
Document DumpHead(std::string_view format);
// Checks that `dump` is an object of `format` and of kDumpVersion.
Status CheckDumpHead(const Document& dump, std::string_view format, std::string_view source);

Result<std::int64_t> DumpInt(const Document& dump, std::string_view field, std::string_view source);
Result<ByteVector> DumpBase64(const Document& dump, std::string_view field,
                              std::string_view source);
// An optional base64 field: empty when absent.
Result<ByteVector> DumpOptionalBase64(const Document& dump, std::string_view field,
                                      std::string_view source);
Result<std::string> DumpString(const Document& dump, std::string_view field,
                               std::string_view source);

// The error of a dump field that has the right type but a wrong value.
Status BadDumpField(std::string_view source, std::string_view field, std::string_view expected);

}  // namespace bloomcodec
