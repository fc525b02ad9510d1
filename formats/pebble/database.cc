// A Pebble database directory (see database.h): which MANIFEST Pebble opens (recovery.go,
// findCurrentManifest of v1.1.5), what it replays into (formats/manifest, Flavor::kPebble), and
// what Pebble checks of the files at open (checkConsistency in open.go).
#include "pebble/database.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "pebble/database_internal.h"

namespace bloomcodec::pebble {
namespace {

namespace fs = std::filesystem;

using manifest::ManifestFinding;

bool DigitsThen(std::string_view name, std::string_view suffix) {
  if (!name.ends_with(suffix) || name.size() == suffix.size()) return false;
  name.remove_suffix(suffix.size());
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Pebble's name of a blob file id (base.BlobFileID.String).
std::string BlobId(std::uint64_t id) {
  std::string n = manifest::TableFileName(id, "");
  n.pop_back();  // the dot before the empty extension
  return "B" + n;
}

std::string Joined(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths)
    out += (out.empty() ? "" : ", ") + fs::path(p).filename().string();
  return out;
}

// The MANIFEST a marker names, into view.manifest_path (nothing and an error finding when the
// marker is ambiguous or names no MANIFEST).
void FromManifestMarker(const std::string& dir, const MarkerChoice& marker, Database& db) {
  manifest::DatabaseView& view = db.view;
  db.identity.from_marker = true;
  view.current_path = marker.marker->path;
  if (!marker.tied.empty()) {
    view.current_findings.push_back(
        Error("another manifest marker has the same iteration (" + Joined(marker.tied) +
              "): Pebble takes whichever the directory lists first, so which MANIFEST it opens is "
              "not known"));
    return;
  }
  if (!ManifestNumber(marker.marker->value)) {
    view.current_findings.push_back(Error("the marker names \"" +
                                          marker.marker->value.substr(0, 80) +
                                          "\", not a MANIFEST-NNNNNN file (\"MANIFEST name is "
                                          "malformed\"): Pebble refuses to open the database"));
    return;
  }
  view.manifest_path = (fs::path(dir) / marker.marker->value).string();
}

// Format major version 2 on names the MANIFEST through marker.manifest.*; version 1 (no
// format-version marker) through CURRENT. Fills db.identity and the names of db.view.
void FindManifest(const std::string& dir, const Listing& listing, Database& db) {
  Identity& id = db.identity;
  manifest::DatabaseView& view = db.view;
  id.markers = listing.markers;
  for (const std::string& bad : listing.bad_markers) {
    db.other_files.push_back({bad,
                              {Error("a marker file name marker.<name>.<iteration>.<value>: "
                                     "Pebble refuses to open the database (\"invalid "
                                     "marker filename\")")}});
  }
  const MarkerChoice format = ChooseMarker(listing, "format-version");
  const MarkerChoice manifest = ChooseMarker(listing, "manifest");
  id.format_marker = format.marker;
  id.manifest_marker = manifest.marker;
  std::optional<std::uint64_t> version;
  if (format.marker) {
    FileFindings f{format.marker->path, {}};
    if (!format.tied.empty()) {
      f.findings.push_back(Error("another format-version marker has the same iteration (" +
                                 Joined(format.tied) +
                                 "): Pebble takes whichever the directory lists first"));
    }
    version = ParseFormatMajorVersion(*format.marker, f.findings);
    if (version) id.format_major_version = *version;
    if (!f.findings.empty()) db.other_files.push_back(std::move(f));
  }
  std::vector<Finding> current_findings;
  if (listing.has_current) id.current = ReadCurrent(dir, current_findings);
  const bool by_marker = format.marker ? !version || *version >= 2
                                       : !listing.has_current && manifest.marker.has_value();
  if (!by_marker) {
    view.current_path = (fs::path(dir) / "CURRENT").string();
    view.current_findings = std::move(current_findings);
    if (!listing.has_current && view.current_findings.empty()) {
      view.current_findings.push_back(
          Error("neither CURRENT nor marker files: Pebble takes the "
                "directory for a database not yet created"));
    }
    if (id.current) view.manifest_path = (fs::path(dir) / *id.current).string();
    return;
  }
  if (!manifest.marker) {
    view.current_path = format.marker->path;
    view.current_findings.push_back(Error(
        "format major version " + std::to_string(id.format_major_version) +
        " names its MANIFEST through a marker.manifest.* file, and there is none: Pebble takes "
        "the directory for a database not yet created"));
    return;
  }
  FromManifestMarker(dir, manifest, db);
}

// Blob files: the MANIFEST's (missing ones are errors: reads of their values fail) and the
// NNNNNN.blob files it does not list.
void CheckBlobFiles(const std::string& dir, Database& db) {
  std::set<std::string> live;
  for (const manifest::BlobFile& b : db.view.manifest.blob_files) {
    LiveBlobFile f{b, (fs::path(dir) / manifest::TableFileName(b.number, "blob")).string(), false};
    std::error_code ec;
    f.missing = !fs::exists(f.path, ec);
    if (f.missing) {
      db.view.manifest_findings.push_back(
          Error("the MANIFEST lists blob file " + BlobId(b.id) + " (" +
                fs::path(f.path).filename().string() + ", " + std::to_string(b.size) +
                " bytes), but the file is missing: reads of the values separated into it fail"));
    }
    live.insert(f.path);
    db.blob_files.push_back(std::move(f));
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (DigitsThen(name, ".blob") && !live.count(it->path().string())) {
      db.obsolete_blob_files.push_back(it->path().string());
    }
  }
  std::sort(db.obsolete_blob_files.begin(), db.obsolete_blob_files.end());
}

// Pebble's checkConsistency: every table file a live table reads (its own, or its backing) must
// have the size the MANIFEST records, or Pebble refuses to open the database.
void CheckTableSizes(Database& db) {
  std::set<std::string> seen;
  for (const manifest::LiveTable& t : db.view.live) {
    if (t.missing || t.path.ends_with(".gz") || !seen.insert(t.path).second) continue;
    std::uint64_t want = t.meta.size;
    if (t.meta.is_virtual) {
      for (const manifest::BackingTable& b : db.view.manifest.backings) {
        if (b.number == t.meta.backing) want = b.size;
      }
    }
    std::error_code ec;
    const std::uintmax_t have = fs::file_size(t.path, ec);
    if (ec || have == want) continue;
    db.view.manifest_findings.push_back(Error(
        "L" + std::to_string(t.meta.level) + ": " + fs::path(t.path).filename().string() +
        " holds " + std::to_string(have) + " bytes, the MANIFEST says " + std::to_string(want) +
        " (\"object size mismatch\"): Pebble refuses to open the database"));
  }
}

// The most recent OPTIONS file; its comparer must be the MANIFEST's, or no options open both.
void CheckOptions(const Listing& listing, Database& db) {
  if (!listing.options) return;
  OptionsFile o = ReadOptionsFile(*listing.options);
  const std::optional<std::string>& recorded = db.view.manifest.comparator;
  if (o.comparer && recorded && *o.comparer != *recorded) {
    o.findings.push_back(Error("OPTIONS names comparer \"" + *o.comparer + "\", the MANIFEST \"" +
                               *recorded + "\": Pebble opens the database with neither"));
  }
  if (!o.findings.empty()) db.other_files.push_back({o.path, o.findings});
  db.identity.options = std::move(o);
}

Evidence EvidenceOf(const Database& db) {
  for (const Marker& m : db.identity.markers) {
    if (m.name == "format-version" || m.name == "manifest") return Evidence::kMarkers;
  }
  if (db.identity.options && db.identity.options->pebble_version) return Evidence::kOptions;
  if (db.view.manifest.pebble_only_fields) return Evidence::kManifest;
  return Evidence::kNone;
}

Database ReadDatabaseOnce(const std::string& dir) {
  Database db;
  const Listing listing = ListDirectory(dir);
  FindManifest(dir, listing, db);
  if (!db.view.manifest_path.empty()) {
    manifest::ReadManifestInto(db.view, dir, manifest::Flavor::kPebble, {"sst"}, IsTableFileName);
  }
  if (db.view.from_manifest) {
    CheckBlobFiles(dir, db);
    CheckTableSizes(db);
  }
  if (db.identity.from_marker && !db.identity.format_marker) {
    // A creation that stopped between the MANIFEST and the format-version marker: Pebble v2 and
    // later continue it while the MANIFEST lists no file, and refuse it otherwise.
    const bool files = !db.view.live.empty() || !db.blob_files.empty();
    db.view.current_findings.push_back(ManifestFinding(
        files ? Severity::kError : Severity::kWarning,
        std::string("no format-version marker, as after a creation that stopped before writing "
                    "it; ") +
            (files ? "the MANIFEST lists files, so Pebble refuses to open the database (as "
                     "format major version 1)"
                   : "the MANIFEST lists no file, so Pebble continues the creation"),
        std::nullopt));
  }
  CheckOptions(listing, db);
  db.evidence = EvidenceOf(db);
  return db;
}

bool HasMissingFile(const Database& db) {
  return std::any_of(db.view.live.begin(), db.view.live.end(),
                     [](const manifest::LiveTable& t) { return t.missing; }) ||
         std::any_of(db.blob_files.begin(), db.blob_files.end(),
                     [](const LiveBlobFile& b) { return b.missing; });
}

}  // namespace

std::string_view EvidenceName(Evidence evidence) {
  switch (evidence) {
    case Evidence::kMarkers: return "markers";
    case Evidence::kOptions: return "options";
    case Evidence::kManifest: return "manifest";
    case Evidence::kNone: break;
  }
  return "none";
}

bool IsTableFileName(std::string_view name) {
  if (name.ends_with(".gz")) name.remove_suffix(3);
  return DigitsThen(name, ".sst");
}

Evidence DetectDatabase(const std::string& dir) {
  const Listing listing = ListDirectory(dir);
  for (const Marker& m : listing.markers) {
    if (m.name == "format-version" || m.name == "manifest") return Evidence::kMarkers;
  }
  if (listing.options) {
    const OptionsFile o = ReadOptionsFile(*listing.options);
    if (o.pebble_version) return Evidence::kOptions;
    if (o.rocksdb_version) return Evidence::kNone;
  }
  if (!listing.has_current) return Evidence::kNone;
  // Only the MANIFEST can tell: fields no LevelDB or RocksDB writes.
  std::vector<Finding> ignored;
  const std::optional<std::string> name = ReadCurrent(dir, ignored);
  if (!name) return Evidence::kNone;
  manifest::DatabaseView view;
  view.current_path = (fs::path(dir) / "CURRENT").string();
  view.manifest_path = (fs::path(dir) / *name).string();
  manifest::ReadManifestInto(view, dir, manifest::Flavor::kPebble, {"sst"}, IsTableFileName);
  return view.manifest.pebble_only_fields ? Evidence::kManifest : Evidence::kNone;
}

Database ReadDatabase(const std::string& dir) {
  // A live file missing from the disk may only mean that the MANIFEST read is stale (a
  // compaction logs its new version first and deletes the files it replaced after): read again
  // while the MANIFEST keeps moving, as manifest::ReadDatabase does.
  constexpr int kRereads = 4;
  Database db = ReadDatabaseOnce(dir);
  for (int i = 0; i < kRereads && db.view.from_manifest && HasMissingFile(db); ++i) {
    Database newer = ReadDatabaseOnce(dir);
    const bool moved = newer.view.manifest_path != db.view.manifest_path ||
                       newer.view.manifest.records != db.view.manifest.records;
    db = std::move(newer);
    if (!moved) break;
  }
  return db;
}

std::vector<FileReport> OtherFileReports(const Database& db) {
  std::vector<FileReport> out;
  for (const FileFindings& f : db.other_files) {
    FileReport r;
    r.path = f.path;
    r.findings = f.findings;
    out.push_back(std::move(r));
  }
  return out;
}

Document InspectDatabase(const Database& db) {
  Document doc = manifest::InspectDatabase(db.view);
  const Identity& id = db.identity;
  Document p;
  p["evidence"] = std::string(EvidenceName(db.evidence));
  p["format_major_version"] = id.format_major_version;
  if (const FormatMajorVersionInfo* v = FindFormatMajorVersion(id.format_major_version)) {
    p["format_major_version_name"] = std::string(v->name);
    p["writes"] = std::string(v->tables);
    p["opened_by"] = std::string(v->opened_by);
  }
  p["manifest_named_by"] = db.view.current_path.empty()
                               ? Document(nullptr)
                               : Document(fs::path(db.view.current_path).filename().string());
  p["current"] = id.current ? Document(*id.current) : Document(nullptr);
  Document markers = Document::array();
  for (const Marker& m : id.markers) markers.push_back(fs::path(m.path).filename().string());
  p["markers"] = std::move(markers);
  if (id.options) {
    const OptionsFile& o = *id.options;
    Document oj;
    oj["file"] = fs::path(o.path).filename().string();
    auto text = [](const std::optional<std::string>& v) {
      return v ? Document(*v) : Document(nullptr);
    };
    oj["pebble_version"] = text(o.pebble_version);
    oj["rocksdb_version"] = text(o.rocksdb_version);
    oj["comparer"] = text(o.comparer);
    oj["merger"] = text(o.merger);
    oj["format_major_version"] =
        o.format_major_version ? Document(*o.format_major_version) : Document(nullptr);
    Document policies = Document::object();
    for (const auto& [level, policy] : o.filter_policy) policies[std::to_string(level)] = policy;
    oj["filter_policy"] = std::move(policies);
    p["options"] = std::move(oj);
  }
  Document backings = Document::array();
  for (const manifest::BackingTable& b : db.view.manifest.backings) {
    Document bj;
    bj["file"] = manifest::TableFileName(b.number, "sst");
    bj["size"] = b.size;
    bj["virtual_tables"] = b.virtual_tables;
    backings.push_back(std::move(bj));
  }
  p["backing_tables"] = std::move(backings);
  Document blobs = Document::array();
  for (const LiveBlobFile& b : db.blob_files) {
    Document bj;
    bj["id"] = BlobId(b.meta.id);
    bj["file"] = fs::path(b.path).filename().string();
    bj["size"] = b.meta.size;
    bj["value_size"] = b.meta.value_size;
    bj["tables"] = b.meta.tables;
    if (b.missing) bj["missing"] = true;
    blobs.push_back(std::move(bj));
  }
  p["blob_files"] = std::move(blobs);
  Document obsolete = Document::array();
  for (const std::string& b : db.obsolete_blob_files)
    obsolete.push_back(fs::path(b).filename().string());
  p["obsolete_blob_files"] = std::move(obsolete);
  doc["pebble"] = std::move(p);
  for (const FileFindings& f : db.other_files) {
    for (const Finding& x : f.findings) {
      Document fj;
      fj["file"] = f.path;
      fj["severity"] = std::string(SeverityName(x.severity));
      fj["message"] = x.message;
      if (x.offset) fj["offset"] = *x.offset;
      doc["findings"].push_back(std::move(fj));
    }
  }
  return doc;
}

}  // namespace bloomcodec::pebble
