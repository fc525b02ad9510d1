// CURRENT, the replay of a MANIFEST's version edits into live tables, and the database view
// (see manifest.h). The log records are read in log_reader.cc, the edits decoded in
// version_edit.cc.
#include "manifest/manifest.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "bloomcodec/format.h"
#include "bloomcodec/input_file.h"
#include "manifest/version_edit.h"

namespace bloomcodec::manifest {
namespace {

namespace fs = std::filesystem;

// The database-wide values of an edit, as far as it decoded. Pebble's recovery takes a log
// number, next file number or last sequence number of 0 for "not set" (recoverVersion).
void TakeDatabaseValues(const VersionEdit& edit, Flavor flavor, Manifest& manifest,
                        ReplayState& state) {
  const bool pebble = flavor == Flavor::kPebble;
  auto take = [pebble](std::optional<std::uint64_t>& to, const std::optional<std::uint64_t>& v) {
    if (v && !(pebble && *v == 0)) to = v;
  };
  if (edit.comparator) manifest.comparator = edit.comparator;
  take(manifest.log_number, edit.log_number);
  if (edit.prev_log_number) manifest.prev_log_number = edit.prev_log_number;
  take(manifest.next_file, edit.next_file);
  take(manifest.last_sequence, edit.last_sequence);
  if (edit.atomic_remaining) state.atomic_remaining = *edit.atomic_remaining;
  if (edit.pebble_only) manifest.pebble_only_fields = true;
}

// The column family and table changes of a decoded edit.
void ReplayTables(VersionEdit& edit, const LogRecord& record, Flavor flavor, ReplayState& state,
                  std::vector<Finding>& notes) {
  const std::uint32_t cf = edit.column_family;
  if (edit.added_column_family) {
    if (state.names.count(cf) && cf != 0) {
      notes.push_back(ManifestFinding(Severity::kWarning,
                                      "column family " + std::to_string(cf) + " is added twice",
                                      record.offset));
    }
    state.names[cf] = *edit.added_column_family;
    state.tables[cf];
  }
  if (edit.drops_column_family) {
    state.names.erase(cf);
    state.tables.erase(cf);
    return;
  }
  if (!state.names.count(cf)) {
    notes.push_back(ManifestFinding(Severity::kWarning,
                                    "an edit for column family " + std::to_string(cf) +
                                        ", which is not (or no longer) in the database; ignored",
                                    record.offset));
    return;
  }
  auto& tables = state.tables[cf];
  for (const auto& [l, n] : edit.deleted) {
    if (tables.erase({l, n}) == 0 && flavor == Flavor::kRocksDb) {
      notes.push_back(ManifestFinding(Severity::kWarning,
                                      "an edit deletes table " + std::to_string(n) +
                                          " from level " + std::to_string(l) +
                                          ", which does not hold it",
                                      record.offset));
    }
  }
  for (TableMeta& t : edit.added) {
    const auto key = std::make_pair(t.level, t.number);
    tables[key] = std::move(t);
  }
}

}  // namespace

Finding ManifestFinding(Severity severity, std::string message, std::optional<std::uint64_t> at) {
  Finding f;
  f.severity = severity;
  f.kind = std::string(finding_kind::kManifest);
  f.message = std::move(message);
  f.offset = at;
  return f;
}

Status ApplyEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                 Manifest& manifest, ReplayState& state, std::vector<Finding>& notes) {
  VersionEdit edit;
  const Status decoded = DecodeVersionEdit(record, flavor, source, edit);
  // The values before a field that does not decode are taken all the same: inspect shows them
  // for a MANIFEST damaged there.
  TakeDatabaseValues(edit, flavor, manifest, state);
  if (!decoded.ok()) return decoded;
  if (flavor == Flavor::kPebble) {
    BLOOMCODEC_RETURN_IF_ERROR(ReplayPebbleEdit(edit, record, source, state, notes));
  } else {
    ReplayTables(edit, record, flavor, state, notes);
  }
  ++manifest.records;
  return Status();
}

Manifest ReadManifest(ByteSpan file, Flavor flavor, std::string_view source) {
  Manifest m;
  LogReadResult log = ReadLogRecords(file, flavor);
  m.findings = std::move(log.findings);
  m.damaged = log.damaged;
  ReplayState state;
  for (const LogRecord& record : log.records) {
    Status s = ApplyEdit(record, flavor, source, m, state, m.findings);
    if (!s.ok()) {
      m.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kManifest, s));
      m.damaged = true;
      break;
    }
  }
  if (flavor == Flavor::kPebble && !m.damaged) FinishPebbleReplay(state, m);
  m.open_atomic_group = state.atomic_remaining > 0;
  if (state.atomic_remaining > 0 && !m.damaged) {
    m.findings.push_back(ManifestFinding(
        Severity::kWarning,
        "the last atomic group is incomplete; RocksDB drops its edits (they are counted here)",
        std::nullopt));
  }
  for (auto& [id, name] : state.names) {
    ColumnFamily c;
    c.id = id;
    c.name = name;
    for (auto& [key, t] : state.tables[id]) c.tables.push_back(std::move(t));
    std::stable_sort(c.tables.begin(), c.tables.end(), [](const TableMeta& a, const TableMeta& b) {
      if (a.level != b.level) return a.level < b.level;
      if (a.level == 0) return a.number < b.number;
      return std::lexicographical_compare(a.smallest.begin(), a.smallest.end(), b.smallest.begin(),
                                          b.smallest.end());
    });
    m.column_families.push_back(std::move(c));
  }
  return m;
}

std::string TableFileName(std::uint64_t number, std::string_view extension) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06llu.", static_cast<unsigned long long>(number));
  return buf + std::string(extension);
}

ByteSpan UserKey(ByteSpan internal_key) {
  return internal_key.first(internal_key.size() >= 8 ? internal_key.size() - 8 : 0);
}

namespace {

DatabaseView ReadDatabaseOnce(const std::string& dir, Flavor flavor,
                              const std::vector<std::string_view>& extensions,
                              bool (*is_table_name)(std::string_view name)) {
  DatabaseView view;
  const fs::path root(dir);
  view.current_path = (root / "CURRENT").string();
  // CURRENT: the MANIFEST's file name and a newline.
  std::string current;
  {
    std::ifstream in(view.current_path, std::ios::binary);
    if (!in) {
      view.current_findings.push_back(ManifestFinding(
          Severity::kError, "no readable CURRENT file: the database does not open", std::nullopt));
    } else {
      char c;
      while (current.size() <= 4096 && in.get(c)) current.push_back(c);
    }
  }
  std::string name;
  if (view.current_findings.empty()) {
    if (current.empty() || current.back() != '\n' || current.size() > 4096) {
      view.current_findings.push_back(ManifestFinding(
          Severity::kError,
          "CURRENT must hold a MANIFEST file name and a newline; found " +
              std::to_string(current.size()) + " bytes" +
              (current.empty() || current.back() != '\n' ? " without the newline" : ""),
          current.size()));
    } else {
      name = current.substr(0, current.size() - 1);
      const bool plausible =
          name.starts_with("MANIFEST-") && name.size() > 9 &&
          std::all_of(name.begin() + 9, name.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!plausible) {
        view.current_findings.push_back(
            ManifestFinding(Severity::kError,
                            "CURRENT names \"" + name.substr(0, 80) +
                                "\", not a MANIFEST-NNNNNN file of the directory",
                            0));
        name.clear();
      }
    }
  }
  if (!name.empty()) {
    view.manifest_path = (root / name).string();
    ReadManifestInto(view, dir, flavor, extensions, is_table_name);
  }
  return view;
}

// What inspect shows of a table beyond LevelDB's fields: only Pebble sets any of them.
void AddPebbleFields(const TableMeta& t, Document& tj) {
  auto hex = [](const ByteVector& v) { return ToHex(ByteSpan(v.data(), v.size())); };
  if (t.is_virtual) tj["backing"] = t.backing;
  if (t.synthetic_prefix) tj["synthetic_prefix"] = hex(*t.synthetic_prefix);
  if (t.synthetic_suffix) tj["synthetic_suffix"] = hex(*t.synthetic_suffix);
  if (t.range_keys) tj["range_keys"] = true;
  if (t.point_keys || t.range_keys) tj["point_keys"] = t.point_keys.has_value();
  if (!t.blob_references.empty()) {
    Document refs = Document::array();
    for (const BlobReference& r : t.blob_references) refs.push_back(r.file_id);
    tj["blob_files"] = std::move(refs);
  }
  if (t.marked_for_compaction) tj["marked_for_compaction"] = true;
}

bool HasMissingTable(const DatabaseView& view) {
  return std::any_of(view.live.begin(), view.live.end(),
                     [](const LiveTable& t) { return t.missing; });
}

}  // namespace

void ReadManifestInto(DatabaseView& view, const std::string& dir, Flavor flavor,
                      const std::vector<std::string_view>& extensions,
                      bool (*is_table_name)(std::string_view name)) {
  const fs::path root(dir);
  std::error_code ec;
  const std::string name = fs::path(view.manifest_path).filename().string();
  Result<InputFile> in = InputFile::Open(view.manifest_path);
  if (!in.ok()) {
    // Named by CURRENT (offset 0: its name) or, for Pebble, by a marker file's name.
    const std::string by = fs::path(view.current_path).filename().string();
    view.current_findings.push_back(
        ManifestFinding(Severity::kError,
                        by + " names " + name + ", which cannot be read: " + in.status().message(),
                        by == "CURRENT" ? std::optional<std::uint64_t>(0) : std::nullopt));
  } else {
    view.manifest = ReadManifest(in->bytes(), flavor, view.manifest_path);
    view.manifest_findings = view.manifest.findings;
    if (!view.manifest.damaged && view.manifest.records == 0) {
      view.manifest_findings.push_back(
          ManifestFinding(Severity::kError, "the MANIFEST holds no version edit", std::nullopt));
      view.manifest.damaged = true;
    }
    view.from_manifest = !view.manifest.damaged;
  }
  // Every table file on disk, for the obsolete list and the fallback.
  std::set<std::string> on_disk;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (is_table_name(file)) on_disk.insert(it->path().string());
  }
  if (!view.from_manifest) return;
  // Where a table file is: NNNNNN.<ext> (or its .gz) for the first extension that exists.
  auto locate = [&](std::uint64_t number, LiveTable& live) {
    live.missing = true;
    for (std::string_view ext : extensions) {
      const std::string p = (root / TableFileName(number, ext)).string();
      if (live.path.empty()) live.path = p;
      if (fs::exists(p, ec) || fs::exists(p + ".gz", ec)) {
        live.path = fs::exists(p, ec) ? p : p + ".gz";
        live.missing = false;
        break;
      }
    }
  };
  std::set<std::string> live_paths;
  for (const ColumnFamily& c : view.manifest.column_families) {
    for (const TableMeta& t : c.tables) {
      LiveTable live;
      live.column_family = c.name;
      live.meta = t;
      if (t.path_id != 0) {
        view.elsewhere.push_back(TableFileName(t.number, extensions.front()) + " (db_paths[" +
                                 std::to_string(t.path_id) + "])");
        continue;
      }
      locate(t.is_virtual ? t.backing : t.number, live);
      live_paths.insert(live.path);
      view.live.push_back(std::move(live));
    }
  }
  // A Pebble backing no live virtual table uses any more is still the database's file.
  for (const BackingTable& b : view.manifest.backings) {
    LiveTable backing;
    locate(b.number, backing);
    live_paths.insert(backing.path);
  }
  for (const std::string& p : on_disk) {
    if (!live_paths.count(p)) view.obsolete.push_back(p);
  }
}

DatabaseView ReadDatabase(const std::string& dir, Flavor flavor,
                          const std::vector<std::string_view>& extensions,
                          bool (*is_table_name)(std::string_view name)) {
  // On a running database, a compaction first logs its new version (appending to the MANIFEST,
  // or switching CURRENT to a new one) and only then deletes the tables it replaced. So a live
  // table missing from the disk may only mean that the MANIFEST read is already stale: read it
  // again while it keeps moving (a few times: a busy node keeps compacting). A table still
  // missing from a MANIFEST that stood still is missing.
  constexpr int kRereads = 4;
  DatabaseView view = ReadDatabaseOnce(dir, flavor, extensions, is_table_name);
  for (int i = 0; i < kRereads && view.from_manifest && HasMissingTable(view); ++i) {
    DatabaseView newer = ReadDatabaseOnce(dir, flavor, extensions, is_table_name);
    const bool moved = newer.manifest_path != view.manifest_path ||
                       newer.manifest.records != view.manifest.records;
    view = std::move(newer);
    if (!moved) break;
  }
  return view;
}

Document InspectDatabase(const DatabaseView& view) {
  Document doc;
  doc["manifest"] = view.manifest_path.empty() ? Document(nullptr) : Document(view.manifest_path);
  doc["from_manifest"] = view.from_manifest;
  const Manifest& m = view.manifest;
  doc["comparator"] = m.comparator ? Document(*m.comparator) : Document(nullptr);
  doc["last_sequence"] = m.last_sequence ? Document(*m.last_sequence) : Document(nullptr);
  doc["next_file"] = m.next_file ? Document(*m.next_file) : Document(nullptr);
  doc["version_edits"] = m.records;
  Document cfs = Document::array();
  for (const ColumnFamily& c : m.column_families) {
    Document cj;
    cj["name"] = c.name;
    cj["id"] = c.id;
    Document levels = Document::array();
    std::map<int, Document> by_level;
    std::map<int, std::uint64_t> bytes;
    for (const TableMeta& t : c.tables) {
      const LiveTable* live = nullptr;
      for (const LiveTable& l : view.live) {
        if (l.meta.number == t.number && l.column_family == c.name) live = &l;
      }
      Document tj;
      tj["file"] = live ? Document(fs::path(live->path).filename().string())
                        : Document(TableFileName(t.number, "sst") + " (db_paths[" +
                                   std::to_string(t.path_id) + "])");
      tj["number"] = t.number;
      tj["size"] = t.size;
      tj["smallest"] = ToHex(UserKey(ByteSpan(t.smallest.data(), t.smallest.size())));
      tj["largest"] = ToHex(UserKey(ByteSpan(t.largest.data(), t.largest.size())));
      if (live && live->missing) tj["missing"] = true;
      AddPebbleFields(t, tj);
      if (!by_level.count(t.level)) by_level[t.level] = Document::array();
      by_level[t.level].push_back(std::move(tj));
      bytes[t.level] += t.size;
    }
    for (auto& [l, tables] : by_level) {
      Document lj;
      lj["level"] = l;
      lj["table_count"] = tables.size();
      lj["bytes"] = bytes[l];
      lj["tables"] = std::move(tables);
      levels.push_back(std::move(lj));
    }
    cj["levels"] = std::move(levels);
    cfs.push_back(std::move(cj));
  }
  doc["column_families"] = std::move(cfs);
  Document obsolete = Document::array();
  for (const std::string& p : view.obsolete) obsolete.push_back(fs::path(p).filename().string());
  doc["obsolete"] = std::move(obsolete);
  Document findings = Document::array();
  auto add = [&](const std::vector<Finding>& list, const std::string& file) {
    for (const Finding& f : list) {
      Document fj;
      fj["file"] = file;
      fj["severity"] = std::string(SeverityName(f.severity));
      fj["message"] = f.message;
      if (f.offset) fj["offset"] = *f.offset;
      findings.push_back(std::move(fj));
    }
  };
  add(view.current_findings, view.current_path);
  add(view.manifest_findings, view.manifest_path);
  doc["findings"] = std::move(findings);
  return doc;
}

}  // namespace bloomcodec::manifest
