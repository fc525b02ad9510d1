// One version edit of a MANIFEST, decoded: the fields LevelDB and RocksDB write (see
// version_edit.cc of both projects). Internal to formats/manifest (the replay in manifest.cc uses
// it); the tag tables that say which fields each flavor knows are in version_edit.cc.
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
};

// Decodes the version edit that `record` holds into `edit` (which starts empty). A field that does
// not decode (a bad varint, a length past the edit's end, a level out of range, a tag the flavor
// does not know) fails with `source` and the field's absolute offset in the file; `edit` then
// holds what was decoded before it.
Status DecodeVersionEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                         VersionEdit& edit);

}  // namespace bloomcodec::manifest
