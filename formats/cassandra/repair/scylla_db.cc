#include "cassandra/repair/scylla_db.h"

#include <string>

#include "codec/byte_reader.h"

namespace bloomcodec::cassandra {

Result<bool> ScyllaRecordsComponentDigests(ByteSpan scylla_db, std::string_view source) {
  ByteReader r(scylla_db, source);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t count, r.ReadBigU32("the entry count (u32)"));
  bool digests = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t tag, r.ReadBigU32("an entry's tag (u32)"));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t size, r.ReadBigU32("an entry's size (u32)"));
    BLOOMCODEC_RETURN_IF_ERROR(r.Skip(size, "an entry's bytes"));
    digests = digests || tag == kScyllaComponentsDigests;
  }
  return digests;
}

}  // namespace bloomcodec::cassandra
