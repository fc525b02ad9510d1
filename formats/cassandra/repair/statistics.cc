#include "cassandra/repair/statistics.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"
#include "cassandra/statistics_db.h"
#include "codec/byte_reader.h"

namespace bloomcodec::cassandra {
namespace {

bool LegacyLayout(std::string_view version, std::string_view sstable_format) {
  return !HasMetadataToc(version, sstable_format);
}

std::uint32_t Crc32(ByteSpan bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, bytes.data(), static_cast<uInt>(bytes.size()));
  return static_cast<std::uint32_t>(crc);
}

// An EstimatedHistogram: i32 bucket count B, B (offset, count) pairs of i64.
Status SkipHistogram(ByteReader& r, std::string_view what) {
  const std::uint64_t at = r.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t buckets, r.ReadBigI32(what));
  if (buckets < 0 || static_cast<std::uint64_t>(buckets) > r.remaining() / 16) {
    return r.ErrorAt(at, std::string(what) + " within the file",
                     std::to_string(buckets) + " buckets");
  }
  return r.ReadBytes(std::uint64_t{16} * static_cast<std::uint64_t>(buckets), what).status();
}

// 2.0's SSTableMetadata record, read up to the partitioner name (which must decode).
Result<RecordedFpChance> FindInLegacyRecord(ByteSpan file, std::string_view source) {
  ByteReader r(file, source);
  BLOOMCODEC_RETURN_IF_ERROR(SkipHistogram(r, "the row size histogram (i32 bucket count)"));
  BLOOMCODEC_RETURN_IF_ERROR(SkipHistogram(r, "the column count histogram (i32 bucket count)"));
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadBytes(12, "the replay position (i64, i32)").status());
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadBytes(16, "the min and max timestamps (i64)").status());
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadBytes(4, "the max local deletion time (i32)").status());
  RecordedFpChance out;
  out.offset = r.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t bits, r.ReadBigU64("bloom_filter_fp_chance (f64)"));
  std::memcpy(&out.fp_chance, &bits, sizeof out.fp_chance);
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadBytes(8, "the compression ratio (f64)").status());
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint16_t length, r.ReadBigU16("partitioner name length"));
  const std::uint64_t name_at = r.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, r.ReadBytes(length, "partitioner class name"));
  Result<std::u16string> text = DecodeModifiedUtf8(name, "the partitioner class name");
  if (!text.ok()) {
    return r.ErrorAt(name_at, "a partitioner class name as writeUTF writes it",
                     text.status().message());
  }
  return out;
}

// From na: every component is followed by its CRC32 (MetadataSerializer checks each one it
// reads; ReadValidationMetadata checks the VALIDATION one). The components lie in offset order,
// each up to the next one's offset (the last up to the end of the file), its CRC32 in its last 4
// bytes.
Status CheckEveryComponentCrc(ByteSpan file, std::string_view source) {
  ByteReader r(file, source);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t count, r.ReadBigI32("component count"));
  BLOOMCODEC_RETURN_IF_ERROR(r.Skip(4, "CRC32 of the count"));
  std::vector<std::uint64_t> offsets;
  for (std::int32_t i = 0; i < count; ++i) {
    BLOOMCODEC_RETURN_IF_ERROR(r.Skip(4, "component type"));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t offset, r.ReadBigI32("component offset"));
    offsets.push_back(static_cast<std::uint64_t>(offset));  // checked by the reader before
  }
  std::sort(offsets.begin(), offsets.end());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : file.size();
    if (end < offsets[i] + 4) {
      return Status::Corrupt(std::string(source), offsets[i], "a component followed by its CRC32",
                             "fewer than 4 bytes");
    }
    ByteReader crc(file.subspan(static_cast<std::size_t>(end - 4), 4), source, end - 4);
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t stored, crc.ReadBigU32("a component's CRC32"));
    const std::uint32_t computed = Crc32(file.subspan(
        static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(end - 4 - offsets[i])));
    if (stored != computed) {
      return Status::Corrupt(std::string(source), end - 4,
                             "the CRC32 of the component at byte " + std::to_string(offsets[i]),
                             "another value");
    }
  }
  return Status();
}

}  // namespace

bool RecordsFpChance(std::string_view version, std::string_view sstable_format) {
  return sstable_format == "bti" || version >= std::string_view("ja");
}

Result<RecordedFpChance> FindRecordedFpChance(ByteSpan file, std::string_view source,
                                              std::string_view version,
                                              std::string_view sstable_format) {
  if (!RecordsFpChance(version, sstable_format)) {
    return Status::Unsupported(std::string(source) + ": Statistics.db of version " +
                               std::string(version) +
                               " records no bloom_filter_fp_chance (it does from ja, 2.0)");
  }
  if (LegacyLayout(version, sstable_format)) return FindInLegacyRecord(file, source);
  // Every checksum is verified here, as Cassandra verifies them when it opens the sstable.
  BLOOMCODEC_ASSIGN_OR_RETURN(ValidationMetadata v,
                              ReadValidationMetadata(file, source, version, sstable_format));
  ByteReader r(file, source);
  // The chance is rewritten in place: it must not share bytes with the table of contents.
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t count, r.ReadBigI32("component count"));
  const std::uint64_t toc_end =
      4 + (v.checksummed ? 8 : 0) + std::uint64_t{8} * static_cast<std::uint64_t>(count);
  if (v.offset < toc_end) {
    return r.ErrorAt(v.offset,
                     "the VALIDATION component after the table of contents (byte " +
                         std::to_string(toc_end) + " on)",
                     "one inside it");
  }
  BLOOMCODEC_RETURN_IF_ERROR(r.Seek(v.offset, "the VALIDATION component"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint16_t length, r.ReadBigU16("partitioner name length"));
  if (v.checksummed) BLOOMCODEC_RETURN_IF_ERROR(CheckEveryComponentCrc(file, source));
  RecordedFpChance out;
  out.fp_chance = v.fp_chance;
  out.offset = v.offset + 2 + length;
  if (v.checksummed) {
    out.crc_offset = out.offset + 8;
    out.covered_from = v.offset;
  }
  return out;
}

Result<ByteVector> WithFpChance(ByteSpan file, std::string_view source, std::string_view version,
                                std::string_view sstable_format, double fp_chance) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RecordedFpChance at,
                              FindRecordedFpChance(file, source, version, sstable_format));
  ByteVector out(file.begin(), file.end());
  std::uint64_t bits;
  std::memcpy(&bits, &fp_chance, sizeof bits);
  for (int i = 0; i < 8; ++i) {
    out[at.offset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  }
  if (at.crc_offset) {
    const std::uint32_t crc = Crc32(ByteSpan(out).subspan(
        at.covered_from, static_cast<std::size_t>(*at.crc_offset - at.covered_from)));
    for (int i = 0; i < 4; ++i) {
      out[*at.crc_offset + static_cast<std::size_t>(i)] =
          static_cast<std::uint8_t>(crc >> (24 - 8 * i));
    }
  }
  Result<RecordedFpChance> again = FindRecordedFpChance(out, source, version, sstable_format);
  std::uint64_t back = 0;
  if (again.ok()) std::memcpy(&back, &again->fp_chance, sizeof back);
  if (!again.ok() || back != bits) {
    return Status::Internal(std::string(source) +
                            ": the rewritten Statistics.db does not read back with the new fp "
                            "chance" +
                            (again.ok() ? std::string() : ": " + again.status().ToString()));
  }
  return out;
}

}  // namespace bloomcodec::cassandra
