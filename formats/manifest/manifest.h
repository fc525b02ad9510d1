// A database's own account of its tables: CURRENT names the MANIFEST, the MANIFEST is a log file
// of version edits, and replaying the edits gives the live tables per level (per column family
// for RocksDB). Shared by the LevelDB, RocksDB and Pebble families (Pebble names its MANIFEST
// through marker files: formats/pebble/database.h); internal to the library (included as
// "manifest/manifest.h").
//
//   manifest::DatabaseView view = manifest::ReadDatabase(dir, manifest::Flavor::kLevelDb);
//   for (const manifest::LiveTable& t : view.live) { ... t.path, t.level, t.smallest ... }
//
// The log format (LevelDB db/log_format.h, RocksDB db/log_format.h): the file is a sequence of
// 32 KiB blocks; a record is one or more fragments, each with a 7-byte header (masked crc32c of
// the type byte and the payload, payload length little-endian u16, type FULL 1 / FIRST 2 /
// MIDDLE 3 / LAST 4) or, RocksDB's recyclable types 5..8, an 11-byte header that adds the log
// number (u32) into the header and the checksum. A block's tail shorter than a header is zero
// padding; type 0 is preallocated space. Every record of a MANIFEST is one encoded version
// edit: a sequence of (varint32 tag, value) fields (see version_edit.cc of both projects).
//
// Damage is never a failure of the call: it is a Finding (kind "manifest", the MANIFEST's path
// in the message is the caller's to add) with the absolute byte offset. A record with a bad
// checksum, a bad length, an unknown type or an edit that does not decode is an error (both
// originals refuse to open the database); a record cut short at the end of the file is a
// warning (a writer that crashed mid-write: both originals drop it silently).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::manifest {

enum class Flavor {
  kLevelDb,  // tags 1..9; new-file records of tag 7; 7 levels
  kRocksDb,  // adds tags 10, 100..103, 200..203, 300, safe-to-ignore tags, recyclable records
  // Pebble's dialect (pebble_edit.cc, pebble_replay.cc): LevelDB's tags and RocksDB's new-file
  // tags, its own 10, 11 and 104..108, no column families, 7 levels; its log reader stops at
  // damage without an error (log_reader.cc says how that is reported).
  kPebble,
};

inline constexpr std::size_t kBlockSize = 32768;
inline constexpr std::size_t kHeaderSize = 7;
inline constexpr std::size_t kRecyclableHeaderSize = 11;
inline constexpr int kLevelDbLevels = 7;
// RocksDB accepts any level the options allow; more than this is taken as damage here.
inline constexpr int kMaxLevels = 64;

// One logical record (fragments joined) and where its fragments' payloads sit in the file.
struct LogRecord {
  ByteVector payload;
  std::uint64_t offset = 0;  // the first fragment's header
  // (position in payload, absolute file offset) of each fragment's first payload byte.
  std::vector<std::pair<std::size_t, std::uint64_t>> pieces;
  // The absolute file offset of payload byte `position`.
  std::uint64_t FileOffset(std::size_t position) const;
};

struct LogReadResult {
  std::vector<LogRecord> records;
  std::vector<Finding> findings;
  bool damaged = false;  // an error finding: the originals would refuse the file
};

// Every record of a log file, in order (log_reader.cc). Stops at the first damage (an error)
// after which the originals stop too; a torn tail (a header, a fragment or a record cut short by
// the end of the file) is a warning.
LogReadResult ReadLogRecords(ByteSpan file, Flavor flavor);

// A custom field of a RocksDB new-file record (tag 103): its tag and where its value sits in
// NewFileRecord::bytes.
struct CustomFieldSpan {
  std::uint32_t tag = 0;
  std::size_t value_at = 0;
  std::size_t value_size = 0;
};

// The new-file field that added a table, as written, so that a writer can record the table again
// under another number and size with every other part kept byte for byte (formats/lsmrepair):
// the field's tag (7, 100, 102 or 103), its bytes after the tag, and where in them the parts
// after the size (the keys, then RocksDB's sequence numbers) and the custom fields begin.
struct NewFileRecord {
  std::uint32_t tag = 0;
  ByteVector bytes;
  std::size_t keys_at = 0;              // the smallest key's length prefix
  std::size_t custom_at = 0;            // the first custom field's tag (tag 103), else bytes.size()
  std::vector<CustomFieldSpan> custom;  // in order, the terminating tag 1 not included

  ByteSpan Value(const CustomFieldSpan& f) const {
    return ByteSpan(bytes.data() + f.value_at, f.value_size);
  }
};

// Pebble's custom fields 66, 69 and 70 are bare uvarints, every other one length-prefixed bytes;
// a Pebble NewFileRecord's span of a bare field covers its uvarints, of another its bytes.
bool PebbleCustomIsBare(std::uint64_t tag);

// A Pebble table's reference to the values it moved into a blob file.
struct BlobReference {
  std::uint64_t file_id = 0;             // the blob file's id (not its disk file number)
  std::uint64_t value_size = 0;          // bytes of values the table refers to
  std::uint64_t backing_value_size = 0;  // custom tag 70 only: the same for the backing table
};

struct KeyBounds {
  ByteVector smallest, largest;  // internal keys
};

struct TableMeta {
  int level = 0;
  std::uint64_t number = 0;
  std::uint64_t size = 0;
  ByteVector smallest;  // internal keys (user key + 8-byte tag)
  ByteVector largest;
  std::uint32_t path_id = 0;  // RocksDB db_paths index (0: the database directory)
  NewFileRecord record;       // the field that added it

  // Pebble only (left as they are for LevelDB and RocksDB).
  // A virtual table (custom tag 66) is a view of part of the table file `backing`: its own
  // number names no file, and `size` is its share of the backing's bytes.
  bool is_virtual = false;
  std::uint64_t backing = 0;
  // Custom tags 67 and 68: bytes a virtual table's keys show in place of the stored prefix /
  // after the stored suffix (the keys in the backing file have neither).
  std::optional<ByteVector> synthetic_prefix, synthetic_suffix;
  // Tag 104 (a table with range keys): the bounds of its point keys (when it has any) and of its
  // range keys; smallest / largest are then the overall bounds its marker byte picks.
  std::optional<KeyBounds> point_keys, range_keys;
  std::uint64_t creation_time = 0;  // custom tag 6, Unix seconds (0: not recorded)
  std::uint64_t blob_reference_depth = 0;
  std::vector<BlobReference> blob_references;  // custom tags 69 / 70
  // Custom tag 2 (as Pebble v1 and v2 read it; Pebble 26.x ignores the tag) or tag 11.
  bool marked_for_compaction = false;
};

// A Pebble table file that virtual tables are views of (tags 105 / 106).
struct BackingTable {
  std::uint64_t number = 0;  // NNNNNN.sst
  std::uint64_t size = 0;
  std::uint32_t virtual_tables = 0;  // live virtual tables that use it (Pebble's reference count)
};

// A Pebble blob file (tags 107 / 108): values separated from the tables.
struct BlobFile {
  std::uint64_t id = 0;      // what tables refer to
  std::uint64_t number = 0;  // NNNNNN.blob
  std::uint64_t size = 0, value_size = 0, creation_time = 0;
  std::uint32_t tables = 0;  // live tables that refer to it
};

struct ColumnFamily {
  std::uint32_t id = 0;
  std::string name;
  // Live tables, by level then by smallest key as bytes (level 0 by file number).
  std::vector<TableMeta> tables;
};

struct Manifest {
  std::optional<std::string> comparator;
  std::optional<std::uint64_t> log_number, prev_log_number, next_file, last_sequence;
  std::uint64_t records = 0;                  // version edits replayed
  std::vector<ColumnFamily> column_families;  // by id; default (0) first; dropped ones left out
  std::vector<Finding> findings;
  bool damaged = false;  // an error finding: the view is what came before the damage
  // Pebble only: backing tables by number, live blob files by id, and whether an edit held a
  // field no LevelDB or RocksDB writes (tags 10 as an excise record, 11, 104..108, custom tags
  // 7 and 66..70): a MANIFEST only Pebble wrote.
  std::vector<BackingTable> backings;
  std::vector<BlobFile> blob_files;
  bool pebble_only_fields = false;
  // RocksDB: the last atomic group is incomplete (its edits are counted here; RocksDB drops
  // them). A writer appending to this MANIFEST would extend that group.
  bool open_atomic_group = false;
};

// Decodes one version edit (version_edit.h) and applies it to `state` (column family id ->
// (level, number) -> table). Fails with the offset (through `record`) of the field that does not
// decode; the database-wide values before that field are taken, its table changes are not.
// Pebble replays a whole MANIFEST as one bulk edit (BulkVersionEdit.Accumulate, then Apply):
// what that needs besides the live tables (pebble_replay.cc).
struct PebbleReplay {
  std::set<std::uint64_t> added;  // every table number an edit added (AllAddedTables)
  // Deletions of a table from a level that did not hold it: Pebble keeps them pending and checks
  // them once the replay ends.
  std::map<int, std::set<std::uint64_t>> deleted_elsewhere;
  std::map<std::uint64_t, BackingTable> backings;  // by disk file number
  std::map<std::uint64_t, BlobFile> blob_files;    // by blob file id
};

struct ReplayState {
  std::map<std::uint32_t, std::string> names{{0, "default"}};
  std::map<std::uint32_t, std::map<std::pair<int, std::uint64_t>, TableMeta>> tables;
  std::uint32_t atomic_remaining = 0;
  PebbleReplay pebble;
};
Status ApplyEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                 Manifest& manifest, ReplayState& state, std::vector<Finding>& notes);

// A finding of kind "manifest" (about CURRENT, a MANIFEST's records or its edits).
Finding ManifestFinding(Severity severity, std::string message, std::optional<std::uint64_t> at);

// Reads and replays a whole MANIFEST.
Manifest ReadManifest(ByteSpan file, Flavor flavor, std::string_view source);

// "000123.ldb" style names: the number with at least six digits and `extension`.
std::string TableFileName(std::uint64_t number, std::string_view extension);

struct LiveTable {
  std::string path;  // where the table is (or would be) on disk; a virtual table's backing file
  std::string column_family;
  TableMeta meta;
  bool missing = false;  // no such file
};

struct DatabaseView {
  std::string current_path;   // dir/CURRENT (Pebble: the file that names the MANIFEST)
  std::string manifest_path;  // what CURRENT names, when it names something
  // Findings about CURRENT (a missing or unreadable MANIFEST included) and about the MANIFEST.
  std::vector<Finding> current_findings;
  std::vector<Finding> manifest_findings;
  bool from_manifest = false;  // false: fall back to the directory listing
  Manifest manifest;
  std::vector<LiveTable> live;
  std::vector<std::string> obsolete;   // table files on disk that no live version references
  std::vector<std::string> elsewhere;  // RocksDB: live tables in other db_paths (not checked)
};

// CURRENT, its MANIFEST and the live tables. `is_table_name` says which directory entries are
// table files (for the obsolete list); a live table is looked up as NNNNNN.<ext> for each of
// `extensions` in turn (LevelDB: ldb then sst), missing when none exists.
DatabaseView ReadDatabase(const std::string& dir, Flavor flavor,
                          const std::vector<std::string_view>& extensions,
                          bool (*is_table_name)(std::string_view name));

// The second half of ReadDatabase, for a view whose manifest_path is set already (Pebble finds
// it through its markers): reads and replays that MANIFEST, then lists the live tables (a
// virtual table at its backing's file) and the table files no live version references.
void ReadManifestInto(DatabaseView& view, const std::string& dir, Flavor flavor,
                      const std::vector<std::string_view>& extensions,
                      bool (*is_table_name)(std::string_view name));

// The user key of an internal key (the key without its 8-byte tag; shorter: empty).
ByteSpan UserKey(ByteSpan internal_key);

// The levels of a database view for inspect: {manifest, comparator, last_sequence,
// column_families: [{name, levels: [{level, tables: [{file, number, size, smallest, largest}]}]}],
// obsolete, findings}.
Document InspectDatabase(const DatabaseView& view);

}  // namespace bloomcodec::manifest
