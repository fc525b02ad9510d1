// Internal: where an sstable's Statistics.db records its filter's fp chance, and the same file
// with another one (repair's rewrite when the fp chance changes).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(RecordedFpChance r,
//       FindRecordedFpChance(in.bytes(), in.path(), "nb", "big"));          // r.fp_chance 0.01
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector next,
//       WithFpChance(in.bytes(), in.path(), "nb", "big", 0.001));            // one CRC32 redone
//
// Layouts (MetadataSerializer and its predecessor, SSTableMetadata.SSTableMetadataSerializer):
// * ja, jb (2.0; Descriptor.Version.hasBloomFilterFPChance is version >= "ja"): one record, no
//   table of contents, no checksum: EstimatedHistogram row sizes and column counts (each an i32
//   bucket count B and B pairs of i64), the ReplayPosition (i64 segment, i32 position), i64 min
//   and max timestamps, i32 max local deletion time, then the f64 BE fp chance, an f64
//   compression ratio and the writeUTF'd partitioner. Read in 2.0's serializer; checked against
//   the corpus's jb files (fp 0.01 at byte 4296 after histograms of 151 and 115 buckets).
// * ka .. me, ScyllaDB's ka .. mt: the VALIDATION component of statistics_db.h, no checksums.
// * na and later, every BTI version: the same, and the VALIDATION component is followed by its
//   CRC32 (of the partitioner name and the fp chance), which is recomputed. The count's and the
//   table of contents' CRC32s do not cover it and do not change: offsets and sizes stay the same
//   (an f64 replaces an f64).
// Nothing else covers Statistics.db: Digest.* and CRC.db checksum Data.db only, TOC.txt lists
// names. ScyllaDB from 2026.2 records a CRC32 of every component in Scylla.db (its
// ComponentsDigests) and checks it at load: repair refuses those sstables (scylla_db.h).
// Before ja the sstable records no fp chance (Unsupported).
//
// Contract: WithFpChance changes exactly the 8 bytes of the fp chance and, from na on, the 4
// bytes of the VALIDATION CRC32; it re-reads its result with the reader of the version
// (ReadValidationMetadata and the checks below) and fails (Internal) if that does not give the
// new fp chance back. Stricter than statistics_db.h, since the file is about to be rewritten:
// from na every component's CRC32 must hold (MetadataSerializer checks each one it reads; the
// components lie in offset order, each ending with its CRC32), and the VALIDATION component must
// not overlap the table of contents. Damage is Corrupt at its offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

// ja and later (BIG), every BTI version.
bool RecordsFpChance(std::string_view version, std::string_view sstable_format);

struct RecordedFpChance {
  double fp_chance = 0;
  std::uint64_t offset = 0;  // of the f64 BE
  // From na (and BTI): the CRC32 after the VALIDATION component, and where that component starts
  // (it ends at the CRC32).
  std::optional<std::uint64_t> crc_offset;
  std::uint64_t covered_from = 0;
};

Result<RecordedFpChance> FindRecordedFpChance(ByteSpan file, std::string_view source,
                                              std::string_view version,
                                              std::string_view sstable_format);

Result<ByteVector> WithFpChance(ByteSpan file, std::string_view source, std::string_view version,
                                std::string_view sstable_format, double fp_chance);

}  // namespace bloomcodec::cassandra
