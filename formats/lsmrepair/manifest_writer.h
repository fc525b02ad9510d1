// Writing a new MANIFEST for a repaired database: the old MANIFEST's records, re-framed into the
// log format's 32 KiB blocks, then one version edit per column family that deletes each replaced
// table and adds its replacement. Internal to formats/lsmrepair (the transaction in
// repair_transaction.h uses it; the fuzzer and tests call it directly).
//
//   std::vector<TableReplacement> replaced = ...;  // old record, new number and size
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector manifest,
//       BuildRepairManifest(log.records, Flavor::kRocksDb, replaced, next_file));
//
// A replacement's new-file field is the old one with the table's number and size changed, and
// for RocksDB's new-file-4 records the custom fields that describe the file's bytes:
//   - file checksum (7) with checksum function (8) "FileChecksumCrc32c": the new file's crc32c,
//     big-endian, as RocksDB's FileChecksumGenCrc32c stores it; an empty checksum or the
//     function "Unknown" is kept as it is; another function cannot be recomputed (refused);
//   - tail size (15): the bytes from the first non-data block to the end of the file (RocksDB's
//     BlockBasedTableBuilder: file size minus props.tail_start_offset, used to prefetch the
//     tail on open). A filter rewrite changes only the tail, so it grows by the file's growth.
// Every other part is copied byte for byte: keys, sequence numbers, the unique id (12, derived
// from the table properties db_id, db_session_id and orig_file_number, which the rewrite keeps),
// epoch number, times, temperature, path id and fields this code does not know.
// The last edit also sets the next file number. LevelDB, goleveldb and Mojang's fork read
// LevelDB's tags only: their edits use tags 3, 6 and 7 (goleveldb's session_record.go knows 1..9).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "manifest/manifest.h"

namespace bloomcodec::lsmrepair {

// The names RocksDB records as a table's file checksum function.
inline constexpr std::string_view kCrc32cChecksumName = "FileChecksumCrc32c";
inline constexpr std::string_view kUnknownChecksumName = "Unknown";

struct TableReplacement {
  std::uint32_t column_family = 0;
  manifest::TableMeta old;  // as the MANIFEST records it, its new-file field included
  std::uint64_t new_number = 0;
  std::uint64_t new_size = 0;
  // The new file's checksum, when the old record carries one that must be recomputed.
  std::optional<ByteVector> file_checksum;
};

// What the record says about the file's checksum: nothing to recompute (no checksum, an empty
// one or the function "Unknown"), crc32c, or a function bloomcodec does not compute (its name).
enum class ChecksumNeed { kNone, kCrc32c, kUnsupported };
ChecksumNeed FileChecksumNeed(const manifest::NewFileRecord& record, std::string* function);

// RocksDB's file checksum value for a crc32c over the whole file (4 bytes, big-endian).
ByteVector Crc32cFileChecksum(std::uint32_t crc);

// The new-file field (its tag first) recording r.old's table as r.new_number of r.new_size.
Result<ByteVector> EncodeReplacedNewFile(const TableReplacement& r);

// Appends records to a log file held in memory, as LevelDB's and RocksDB's log::Writer do:
// fragments of type FULL, or FIRST / MIDDLE... / LAST across 32 KiB blocks, a block tail shorter
// than a header padded with zeros, each fragment checked by its masked crc32c.
class LogWriter {
 public:
  explicit LogWriter(ByteVector& out) : out_(out) {}
  void AddRecord(ByteSpan payload);

 private:
  ByteVector& out_;
};

// The repair's version edits, one per column family in id order, in the flavor's tags.
Result<std::vector<ByteVector>> RepairEdits(std::span<const TableReplacement> replaced,
                                            manifest::Flavor flavor, std::uint64_t next_file);

// The whole new MANIFEST: every old record (payloads byte for byte), then the repair's edits.
Result<ByteVector> BuildRepairManifest(std::span<const manifest::LogRecord> old_records,
                                       manifest::Flavor flavor,
                                       std::span<const TableReplacement> replaced,
                                       std::uint64_t next_file);

}  // namespace bloomcodec::lsmrepair
