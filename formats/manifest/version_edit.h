// One version edit of a MANIFEST, decoded: the fields LevelDB, RocksDB and Pebble write (see
// version_edit.cc of LevelDB and RocksDB, internal/manifest/version_edit.go of Pebble). Internal
// to formats/manifest (the replay in manifest.cc uses it); the tag tables that say which fields
// each flavor knows are in version_edit.cc and pebble_edit.cc, Pebble's replay in
// pebble_replay.cc.
//
//   VersionEdit edit;
//   Status s = DecodeVersionEdit(record, Flavor::kRocksDb, "db/MANIFEST-000005", edit);
//   // s failed: `edit` holds the fields before the one that did not decode.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomcodec/status.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest {

struct VersionEdit {
  // Database-wide values; a field given twice keeps the later value, as in the originals.
  std::optional<std::string> comparator;
  std::optional<std::uint64_t> log_number, prev_log_number, next_file, last_sequence;
  // RocksDB: the edits left in the atomic group this edit belongs to.
  std::optional<std::uint32_t> atomic_remaining;

  // The column family the table changes are about (RocksDB; 0, the default one, otherwise).
  std::uint32_t column_family = 0;
  std::optional<std::string> added_column_family;  // its name
  bool drops_column_family = false;

  std::vector<std::pair<int, std::uint64_t>> deleted;  // (level, file number)
  std::vector<TableMeta> added;

  // Pebble.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> created_backings;  // (number, size)
  std::vector<std::uint64_t> removed_backings;
  std::vector<BlobFile> new_blob_files;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> deleted_blob_files;  // (id, number)
  std::vector<std::pair<int, std::uint64_t>> marked_for_compaction;         // (level, number)
  bool pebble_only = false;  // a field no LevelDB or RocksDB writes (Manifest::pebble_only_fields)
};

// Decodes the version edit that `record` holds into `edit` (which starts empty). A field that does
// not decode (a bad varint, a length past the edit's end, a level out of range, a tag the flavor
// does not know) fails with `source` and the field's absolute offset in the file; `edit` then
// holds what was decoded before it.
Status DecodeVersionEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                         VersionEdit& edit);

// Applies a decoded Pebble edit to `state` as Pebble's BulkVersionEdit.Accumulate does: blob
// files, deleted tables, created backings, new tables, removed backings, marks. What Pebble
// refuses (a table deleted before it was added, a virtual table without its backing, a mark of
// an unknown table) fails at the record's offset; what it ignores is a warning in `notes`.
Status ReplayPebbleEdit(VersionEdit& edit, const LogRecord& record, std::string_view source,
                        ReplayState& state, std::vector<Finding>& notes);

// What Pebble checks once every edit is in (BulkVersionEdit.Apply, recoverVersion): pending
// deletions, blob references and backings of the live tables, a log number or next file number.
// Fills manifest.backings and manifest.blob_files; a failed check is an error finding and marks
// the manifest damaged.
void FinishPebbleReplay(ReplayState& state, Manifest& manifest);

}  // namespace bloomcodec::manifest
