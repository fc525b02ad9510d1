// Cassandra's Statistics.db (the VALIDATION component): any bytes, read as a version without
// checksums (me) and with them (nb), give the partitioner and fp chance or a status naming the
// file; a Corrupt status carries an offset inside the input. A file read once reads the same
// again, and a VALIDATION found lies inside the input. Repair's view of the same bytes: the fp
// chance found in 2.0's record (jb) and through the table of contents (me, nb: every CRC32), and
// rewritten to another chance, which reads back and changes only the chance's 8 bytes and the
// VALIDATION CRC32; the bytes read as a ScyllaDB Scylla.db; and read as a Summary.db, whose
// header's count (summary_db.h) is in bounds, ordered and the same twice.
#include <cstring>
#include <string>

#include "cassandra/repair/scylla_db.h"
#include "cassandra/repair/statistics.h"
#include "cassandra/statistics_db.h"
#include "cassandra/summary_db.h"
#include "fuzz_support.h"

using namespace bloomcodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan input(data, size);
  // The partition count verify compares Index.db with (the STATS component's histogram, or the
  // legacy layout's first field for ic): read in bounds, the same twice, never past 2^62.
  for (const char* version : {"me", "nb", "ic"}) {
    const std::string_view format = std::string_view(version) == "ic" ? "" : "big";
    const std::optional<std::uint64_t> n =
        cassandra::RecordedPartitionCount(input, version, format);
    FUZZ_CHECK(!n || *n <= (std::uint64_t{1} << 62));
    FUZZ_CHECK(n == cassandra::RecordedPartitionCount(input, version, format));
  }
  for (const char* version : {"me", "nb"}) {
    Result<cassandra::ValidationMetadata> v =
        cassandra::ReadValidationMetadata(input, "Statistics.db", version, "big");
    if (!v.ok()) {
      fuzz::CheckNamesSource(v.status(), "Statistics.db");
      if (v.status().offset()) FUZZ_CHECK(*v.status().offset() <= size);
      continue;
    }
    FUZZ_CHECK(v->offset < size);
    FUZZ_CHECK(v->checksummed == (std::string(version) == "nb"));
    Result<cassandra::ValidationMetadata> again =
        cassandra::ReadValidationMetadata(input, "Statistics.db", version, "big");
    FUZZ_CHECK(again.ok() && again->partitioner == v->partitioner && again->offset == v->offset);
    (void)cassandra::PromisedFpRate(1000, v->fp_chance);
  }
  for (const char* version : {"jb", "me", "nb"}) {
    Result<cassandra::RecordedFpChance> at =
        cassandra::FindRecordedFpChance(input, "Statistics.db", version, "big");
    if (!at.ok()) {
      fuzz::CheckNamesSourceAndOffset(at.status(), "Statistics.db", size);
      continue;
    }
    FUZZ_CHECK(at->offset + 8 <= size);
    if (at->crc_offset)
      FUZZ_CHECK(*at->crc_offset == at->offset + 8 && *at->crc_offset + 4 <= size);
    const double other = at->fp_chance == 0.5 ? 0.25 : 0.5;
    Result<ByteVector> next =
        cassandra::WithFpChance(input, "Statistics.db", version, "big", other);
    FUZZ_CHECK(next.ok() && next->size() == size);
    for (std::size_t i = 0; i < size; ++i) {
      const bool chance = i >= at->offset && i < at->offset + 8;
      const bool crc = at->crc_offset && i >= *at->crc_offset && i < *at->crc_offset + 4;
      FUZZ_CHECK(chance || crc || (*next)[i] == data[i]);
    }
    Result<cassandra::RecordedFpChance> back =
        cassandra::FindRecordedFpChance(*next, "Statistics.db", version, "big");
    FUZZ_CHECK(back.ok() && back->offset == at->offset &&
               std::memcmp(&back->fp_chance, &other, sizeof other) == 0);
  }
  for (const char* version : {"jb", "ka", "nb"}) {
    const std::optional<cassandra::SummaryCount> s =
        cassandra::RecordedSummaryCount(input, version);
    FUZZ_CHECK(!s || std::string_view(version) != "jb");
    FUZZ_CHECK(!s || (s->least >= 1 && s->least <= s->about && size >= 24));
    const std::optional<cassandra::SummaryCount> again =
        cassandra::RecordedSummaryCount(input, version);
    FUZZ_CHECK(s.has_value() == again.has_value() && (!s || s->about == again->about));
  }
  Result<bool> scylla = cassandra::ScyllaRecordsComponentDigests(input, "Scylla.db");
  if (!scylla.ok()) fuzz::CheckNamesSourceAndOffset(scylla.status(), "Scylla.db", size);
  return 0;
}
