// Cassandra's Statistics.db (the VALIDATION component): any bytes, read as a version without
// checksums (me) and with them (nb), give the partitioner and fp chance or a status naming the
// file; a Corrupt status carries an offset inside the input. A file read once reads the same
// again, and a VALIDATION found lies inside the input.
#include <string>

#include "cassandra/statistics_db.h"
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
  return 0;
}
