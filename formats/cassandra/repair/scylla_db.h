// Internal: what ScyllaDB's own component, Scylla.db, says that matters to a repair: whether it
// records a digest of the other components.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(bool digests, ScyllaRecordsComponentDigests(in.bytes(), in.path()));
//   if (digests) ...   // a new Filter.db would fail ScyllaDB's digest check at load: refuse
//
// Layout (scylladb/scylladb sstables/types.hh, scylla_metadata; sstables.cc, the
// disk_set_of_tagged_union parse): big-endian like every ScyllaDB component, a u32 count N, then
// N entries of u32 tag (scylla_metadata_type), u32 size S and S bytes; when the set holds tag 12
// (ComponentsDigests, from ScyllaDB 2026.2: "sstables: verify component digests on SSTable
// load"), a u32 digest of the set follows. ComponentsDigests maps each component type (Filter,
// Statistics, ...) to the CRC32 of its file, and sstable::read_filter / read_statistics compare
// it with the file at load (read_simple_and_verify_digest) and fail the sstable on a mismatch.
//
// Compatibility contract: the answer is what ScyllaDB's parse of the set finds; an entry that
// runs past the end of the file is Corrupt at its offset.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

inline constexpr std::uint32_t kScyllaComponentsDigests = 12;

Result<bool> ScyllaRecordsComponentDigests(ByteSpan scylla_db, std::string_view source);

}  // namespace bloomcodec::cassandra
