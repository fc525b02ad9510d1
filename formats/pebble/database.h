// A Pebble database directory as Pebble opens it: which MANIFEST is current (marker files, or
// CURRENT below format major version 2), the format major version, the OPTIONS file, and the
// live tables, backing tables and blob files the MANIFEST replays into. Internal to the library
// (included as "pebble/database.h"); formats/pebble/FORMAT.md §8 has the facts and sources.
//
//   pebble::Database db = pebble::ReadDatabase("/data/geth/chaindata");
//   manifest::PlanDatabase(dir, db.view, check, fallback, tasks);  // as LevelDB and RocksDB
//   for (const manifest::LiveTable& t : db.view.live) { ... t.path (a virtual table's backing) }
//
// Damage is never a failure of the call: it is a Finding of kind "manifest" with its offset, in
// db.view (about the file that names the MANIFEST, and about the MANIFEST) or in db.other_files
// (marker names, the format-version marker, OPTIONS). What Pebble refuses to open is an error.
// When no MANIFEST can be trusted (none named, an ambiguous manifest marker, a damaged record or
// edit, a replay Pebble refuses), db.view.from_manifest is false, as for LevelDB and RocksDB,
// and verify falls back to the directory listing; findings about OPTIONS, marker names, blob
// files or table sizes leave the levels in place.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/verify.h"
#include "manifest/manifest.h"

namespace bloomcodec::pebble {

// A file named marker.<name>.<iteration>.<value> (vfs/atomicfs/marker.go). Per name the highest
// iteration is the marker's value; lower ones are leftovers Pebble deletes.
struct Marker {
  std::string path;
  std::string name;  // "format-version", "manifest", ...
  std::uint64_t iteration = 0;
  std::string value;  // the rest of the file name, dots included
};

// The most recent OPTIONS-NNNNNN file (highest number), as Pebble's parseOptions reads it: INI
// sections, `key=value` lines, ';' and '#' comments. RocksDB's [CFOptions "default"] is read as
// [Options] with comparator and merge_operator as comparer and merger.
struct OptionsFile {
  std::string path;
  std::optional<std::string> pebble_version;   // [Version]; Pebble always writes "0.1"
  std::optional<std::string> rocksdb_version;  // RocksDB's OPTIONS
  std::optional<std::string> comparer, merger, key_schema;
  // What the options asked for; the database's own is in its format-version marker.
  std::optional<std::uint64_t> format_major_version;
  std::map<int, std::string> filter_policy;  // [Level "N"] filter_policy ("none": no filter)
  std::vector<Finding> findings;
};

// What a format major version writes (format_major_version.go of Pebble master, v1.1.5 and
// v2.1.4; FORMAT.md §8.2).
struct FormatMajorVersionInfo {
  std::uint64_t version = 0;
  std::string_view name;
  std::string_view tables;     // the table format the database writes
  std::string_view opened_by;  // which Pebble releases open it
};

// The row of `version`, or null for 0 and for versions newer than the table knows.
const FormatMajorVersionInfo* FindFormatMajorVersion(std::uint64_t version);

// How the directory names its MANIFEST.
struct Identity {
  std::vector<Marker> markers;            // every marker file, current ones and leftovers
  std::optional<Marker> format_marker;    // the highest marker.format-version.*
  std::optional<Marker> manifest_marker;  // the highest marker.manifest.*
  // From the format-version marker; 1 (FormatMostCompatible, CURRENT) without one.
  std::uint64_t format_major_version = 1;
  bool from_marker = false;  // the MANIFEST comes from marker.manifest.*, not from CURRENT
  std::optional<std::string> current;  // what CURRENT names (from FMV 3 on: MANIFEST-000000)
  std::optional<OptionsFile> options;
};

// Why a directory is taken for a Pebble database.
enum class Evidence {
  kNone,
  kMarkers,   // marker.format-version.* or marker.manifest.*
  kOptions,   // an OPTIONS file whose [Version] names pebble_version
  kManifest,  // CURRENT and a MANIFEST with fields only Pebble writes (tags 10, 11, 104..108)
};

std::string_view EvidenceName(Evidence evidence);

// A blob file the MANIFEST lists (NNNNNN.blob).
struct LiveBlobFile {
  manifest::BlobFile meta;
  std::string path;
  bool missing = false;
};

// Findings about a file other than the one that names the MANIFEST and the MANIFEST itself.
struct FileFindings {
  std::string path;
  std::vector<Finding> findings;
};

struct Database {
  Evidence evidence = Evidence::kNone;
  Identity identity;
  // The same view LevelDB and RocksDB produce, for manifest::PlanDatabase and InspectDatabase:
  // current_path is the marker (or CURRENT) that names the MANIFEST; a virtual table's live.path
  // is its backing's file and live.meta.is_virtual is set (bounds, synthetic prefix and suffix in
  // live.meta); a backing shared by several virtual tables is listed once per table; obsolete
  // lists NNNNNN.sst files no live table or backing uses.
  manifest::DatabaseView view;
  std::vector<LiveBlobFile> blob_files;
  std::vector<std::string> obsolete_blob_files;  // NNNNNN.blob files the MANIFEST does not list
  std::vector<FileFindings> other_files;
};

// Why `dir` is a Pebble database, cheapest evidence first; kNone when it is not one (a LevelDB
// or RocksDB database, whose OPTIONS name rocksdb_version, included).
Evidence DetectDatabase(const std::string& dir);

// Reads the directory as Pebble opens it. When a live table or blob file is missing, the
// MANIFEST is read again while it keeps moving (a running database compacts), as for LevelDB.
Database ReadDatabase(const std::string& dir);

// NNNNNN.sst, the only table file name Pebble uses (base.ParseFilename; ".gz" copies too).
bool IsTableFileName(std::string_view name);

// Reports for the files in db.other_files (no group: out of every rate), for verify.
std::vector<FileReport> OtherFileReports(const Database& db);

// inspect's view: manifest::InspectDatabase plus the format major version, markers, OPTIONS,
// backing tables and blob files.
Document InspectDatabase(const Database& db);

}  // namespace bloomcodec::pebble
