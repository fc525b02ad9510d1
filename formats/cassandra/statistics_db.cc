#include "cassandra/statistics_db.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/input_file.h"
#include "codec/byte_reader.h"

namespace bloomcodec::cassandra {
namespace {

constexpr std::int32_t kMaxComponents = 16;
constexpr std::int32_t kMetadataTypes = 5;  // VALIDATION, COMPACTION, STATS, HEADER, (5.0) more
constexpr std::int32_t kValidation = 0;

std::uint32_t Crc32(ByteSpan a, ByteSpan b = {}) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, a.data(), static_cast<uInt>(a.size()));
  if (!b.empty()) crc = crc32(crc, b.data(), static_cast<uInt>(b.size()));
  return static_cast<std::uint32_t>(crc);
}

std::string Hex32(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 15];
  return s;
}

}  // namespace

bool HasMetadataToc(std::string_view version, std::string_view sstable_format) {
  return sstable_format == "bti" || version >= std::string_view("ka");
}

Result<ValidationMetadata> ReadValidationMetadata(ByteSpan file, std::string_view source,
                                                  std::string_view version,
                                                  std::string_view sstable_format) {
  if (!HasMetadataToc(version, sstable_format)) {
    return Status::Unsupported(std::string(source) + ": Statistics.db of version " +
                               std::string(version) +
                               " (before ka) has the legacy metadata layout, not read here");
  }
  const bool checksummed = sstable_format == "bti" || version >= std::string_view("na");
  ByteReader r(file, source);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t count, r.ReadBigI32("component count (i32 BE)"));
  if (count < 0 || count > kMaxComponents) {
    return r.ErrorAt(0, "a component count in 0 .. " + std::to_string(kMaxComponents),
                     std::to_string(count));
  }
  if (checksummed) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t stored, r.ReadBigU32("CRC32 of the count"));
    const std::uint32_t computed = Crc32(file.first(4));
    if (stored != computed) {
      return r.ErrorAt(4, "the CRC32 of the component count, " + Hex32(computed), Hex32(stored));
    }
  }
  const std::uint64_t toc_start = r.position();
  std::optional<std::uint64_t> validation;
  for (std::int32_t i = 0; i < count; ++i) {
    const std::uint64_t at = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t type, r.ReadBigI32("component type (i32 BE)"));
    if (type < 0 || type >= kMetadataTypes) {
      return r.ErrorAt(at, "a metadata type in 0 .. " + std::to_string(kMetadataTypes - 1),
                       std::to_string(type));
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t offset, r.ReadBigI32("component offset (i32 BE)"));
    if (offset < 0 || static_cast<std::uint64_t>(offset) >= file.size()) {
      return r.ErrorAt(at + 4,
                       "a component offset inside the file (0 .. " +
                           std::to_string(file.size() == 0 ? 0 : file.size() - 1) + ")",
                       std::to_string(offset));
    }
    if (type == kValidation) validation = static_cast<std::uint64_t>(offset);
  }
  if (checksummed) {
    const std::uint64_t at = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t stored,
                                r.ReadBigU32("CRC32 of the table of contents"));
    const std::uint32_t computed =
        Crc32(file.first(4), file.subspan(toc_start, static_cast<std::size_t>(at - toc_start)));
    if (stored != computed) {
      return r.ErrorAt(at, "the CRC32 of the table of contents, " + Hex32(computed), Hex32(stored));
    }
  }
  if (!validation) {
    return Status::CorruptFile(std::string(source),
                               "no VALIDATION component in the table of contents (type 0: the "
                               "partitioner and the bloom filter fp chance)");
  }
  BLOOMCODEC_RETURN_IF_ERROR(r.Seek(*validation, "the VALIDATION component"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint16_t length,
                              r.ReadBigU16("partitioner name length (u16 BE)"));
  const std::uint64_t name_at = r.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, r.ReadBytes(length, "partitioner class name"));
  Result<std::u16string> text = DecodeModifiedUtf8(name, "the partitioner class name");
  if (!text.ok()) {
    return r.ErrorAt(name_at, "a partitioner class name as writeUTF writes it",
                     text.status().message());
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t fp_bits,
                              r.ReadBigU64("bloom_filter_fp_chance (f64 BE)"));
  if (checksummed) {
    const std::uint64_t end = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t stored,
                                r.ReadBigU32("CRC32 of the VALIDATION component"));
    const std::uint32_t computed =
        Crc32(file.subspan(*validation, static_cast<std::size_t>(end - *validation)));
    if (stored != computed) {
      return r.ErrorAt(end, "the CRC32 of the VALIDATION component, " + Hex32(computed),
                       Hex32(stored));
    }
  }
  ValidationMetadata v;
  v.partitioner = *Utf8FromUtf16(*text, /*replace_unpaired=*/true);
  std::memcpy(&v.fp_chance, &fp_bits, sizeof v.fp_chance);
  v.offset = *validation;
  v.checksummed = checksummed;
  return v;
}

namespace {

constexpr std::int32_t kStats = 2;
constexpr std::int32_t kMaxHistogramBuckets = 1024;  // Cassandra writes 151 or 156

// Where the STATS component starts, from the table of contents (ka and later, BTI).
std::optional<std::uint64_t> StatsOffset(ByteSpan file, std::string_view version,
                                         std::string_view sstable_format) {
  ByteReader r(file, "");
  Result<std::int32_t> count = r.ReadBigI32("component count");
  if (!count.ok() || *count < 0 || *count > kMaxComponents) return std::nullopt;
  if (sstable_format == "bti" || version >= std::string_view("na")) {
    if (!r.ReadBigU32("CRC32 of the count").ok()) return std::nullopt;
  }
  for (std::int32_t i = 0; i < *count; ++i) {
    Result<std::int32_t> type = r.ReadBigI32("component type");
    Result<std::int32_t> offset = r.ReadBigI32("component offset");
    if (!type.ok() || !offset.ok() || *offset < 0) return std::nullopt;
    if (*type == kStats) return static_cast<std::uint64_t>(*offset);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> RecordedPartitionCount(ByteSpan file, std::string_view version,
                                                    std::string_view sstable_format) {
  std::optional<std::uint64_t> at;
  if (HasMetadataToc(version, sstable_format)) {
    at = StatsOffset(file, version, sstable_format);
  } else if (version >= std::string_view("hb")) {
    at = 0;
  }
  if (!at || *at >= file.size()) return std::nullopt;
  ByteReader r(file, "");
  if (!r.Seek(static_cast<std::size_t>(*at), "STATS").ok()) return std::nullopt;
  Result<std::int32_t> buckets = r.ReadBigI32("bucket count");
  if (!buckets.ok() || *buckets < 1 || *buckets > kMaxHistogramBuckets) return std::nullopt;
  std::uint64_t total = 0;
  for (std::int32_t i = 0; i < *buckets; ++i) {
    Result<std::int64_t> offset = r.ReadBigI64("bucket offset");
    Result<std::int64_t> n = r.ReadBigI64("bucket count");
    if (!offset.ok() || !n.ok() || *n < 0) return std::nullopt;
    total += static_cast<std::uint64_t>(*n);
    if (total > (std::uint64_t{1} << 62)) return std::nullopt;
  }
  return total;
}

bool ExpectStatisticsCount(const std::string& path, std::string_view version,
                           std::string_view sstable_format, const std::string& source,
                           FilterKeys& keys) {
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return false;
  // From na (and in BTI) the file carries checksums: a count is taken only from a file whose
  // checksums hold, as CheckStatistics reads it.
  if (HasMetadataToc(version, sstable_format) &&
      !ReadValidationMetadata(in->bytes(), path, version, sstable_format).ok()) {
    return false;
  }
  const std::optional<std::uint64_t> n =
      RecordedPartitionCount(in->bytes(), version, sstable_format);
  if (n) keys.ExpectRecordedCount(*n, source, path);
  return n.has_value();
}

std::optional<double> PromisedFpRate(std::int64_t keys, double fp_chance) {
  if (keys <= 0) return std::nullopt;
  Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(keys, fp_chance);
  if (!spec.ok() || spec->always_present || spec->word_count <= 0) return std::nullopt;
  const double m = static_cast<double>(spec->capacity_bits());
  const double k = spec->hash_count;
  return std::pow(1.0 - std::exp(-k * static_cast<double>(keys) / m), k);
}

std::optional<FpChanceJudgment> JudgeFpChance(std::int64_t keys, double fp_chance,
                                              const FillStatistics& fill, double false_alarm) {
  const std::optional<double> promised = PromisedFpRate(keys, fp_chance);
  if (!promised || fill.bits == 0 || fill.hash_count == 0) return std::nullopt;
  Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(keys, fp_chance);
  const double m = static_cast<double>(spec->capacity_bits());
  const double k = spec->hash_count;
  const double n = static_cast<double>(keys);
  // The band of set bits the sized filter shows with chance >= 1 - alpha (both tails alpha/2).
  const double t = k * std::sqrt(n * std::log(2 / false_alarm) / 2);
  const double distinct = std::max(0.0, k - k * k * k / m);
  const double mean_low = -m * std::expm1(n * std::log1p(-distinct / m)) - 1;
  const double mean_high = -m * std::expm1(n * std::log1p(-std::min(k, m) / m));
  const double low_bits = std::clamp(mean_low - t, 0.0, m);
  const double high_bits = std::clamp(std::min(mean_high + t, k * n), 0.0, m);
  FpChanceJudgment j;
  j.promised = *promised;
  j.implied = fill.false_positive_rate;
  j.low = std::pow(low_bits / m, k);
  j.high = std::pow(high_bits / m, k);
  j.outside = j.implied < j.low || j.implied > j.high;
  j.off = j.outside && std::fabs(j.implied / j.promised - 1.0) > kFpChanceTolerance;
  return j;
}

void CheckStatistics(const std::string& path, std::string_view version,
                     std::string_view sstable_format, std::optional<std::int64_t> keys,
                     FileReport& report) {
  if (!HasMetadataToc(version, sstable_format)) return;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kStatistics,
               "Statistics.db: " + in.status().ToString());
    return;
  }
  Result<ValidationMetadata> v = ReadValidationMetadata(in->bytes(), path, version, sstable_format);
  if (!v.ok()) {
    Finding f = FindingFromStatus(Severity::kError, finding_kind::kStatistics, v.status());
    f.message = path + ": " + f.message + " (Cassandra cannot open this sstable)";
    report.findings.push_back(std::move(f));
    return;
  }
  char chance[32];
  std::snprintf(chance, sizeof chance, "%.17g", v->fp_chance);
  report.Add(Severity::kInfo, finding_kind::kStatistics,
             "Statistics.db: partitioner " + v->partitioner + ", bloom_filter_fp_chance " + chance);
  report.findings.back().fields.emplace_back("partitioner", v->partitioner);
  report.findings.back().fields.emplace_back("bloom_filter_fp_chance", chance);
  if (!keys || !report.fill || report.fill->bits == 0) return;
  const FillStatistics fill =
      ComputeFillStatistics(report.fill->bits, report.fill->bits_set, report.fill->hash_count);
  const std::optional<FpChanceJudgment> j = JudgeFpChance(*keys, v->fp_chance, fill);
  if (!j || !j->off) return;
  const double implied = j->implied;
  const std::optional<double> promised = j->promised;
  char text[256];
  std::snprintf(text, sizeof text,
                "the filter's fill implies fp rate %.3g, but a filter sized for its %lld keys at "
                "bloom_filter_fp_chance %s promises %.3g (%s): the key count estimated when it was "
                "written was likely %s",
                implied, static_cast<long long>(*keys), chance, *promised,
                implied > *promised ? "worse" : "better",
                implied > *promised ? "too low" : "too high");
  report.Add(Severity::kWarning, finding_kind::kFpChance, text);
  char a[32], b[32];
  std::snprintf(a, sizeof a, "%.6g", implied);
  std::snprintf(b, sizeof b, "%.6g", *promised);
  report.findings.back().fields.emplace_back("implied_fp_rate", a);
  report.findings.back().fields.emplace_back("promised_fp_rate", b);
}

}  // namespace bloomcodec::cassandra
