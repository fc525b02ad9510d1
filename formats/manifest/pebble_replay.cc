// Pebble's replay of a MANIFEST (see version_edit.h). Pebble accumulates every edit of the file
// into one bulk edit and applies it to an empty version once (recoverVersion in recovery.go,
// BulkVersionEdit.Accumulate and Apply in internal/manifest/version_edit.go). The live tables
// come out as LevelDB's replay would give them, but Pebble refuses some edits LevelDB lets pass
// (a table deleted before any edit added it), keeps backing tables for virtual tables and blob
// files for separated values, and checks the result at the end.
#include <cstdio>
#include <string>

#include "manifest/version_edit.h"

namespace bloomcodec::manifest {
namespace {

// Pebble's file number format: at least six digits.
std::string Number(std::uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string TableAt(int level, std::uint64_t number) {
  return "L" + std::to_string(level) + "." + Number(number);
}

Status Refused(const LogRecord& record, std::string_view source, const std::string& what) {
  return Status::Corrupt(std::string(source), record.offset,
                         what + ": Pebble refuses to open the database");
}

// Deleted tables: every one must have been added by some edit (to any level). One its level
// does not hold stays pending, as in Pebble (checked by FinishPebbleReplay).
Status DeleteTables(const VersionEdit& edit, const LogRecord& record, std::string_view source,
                    ReplayState& state) {
  auto& tables = state.tables[0];
  for (const auto& [level, number] : edit.deleted) {
    if (!state.pebble.added.count(number)) {
      return Refused(record, source,
                     "an edit deletes table " + TableAt(level, number) +
                         ", which no edit before added (\"file deleted before it was inserted\")");
    }
    if (tables.erase({level, number}) == 0) state.pebble.deleted_elsewhere[level].insert(number);
  }
  return Status();
}

Status AddTables(VersionEdit& edit, const LogRecord& record, std::string_view source,
                 ReplayState& state) {
  PebbleReplay& p = state.pebble;
  auto& tables = state.tables[0];
  for (TableMeta& t : edit.added) {
    auto pending = p.deleted_elsewhere.find(t.level);
    if (pending != p.deleted_elsewhere.end() && pending->second.count(t.number)) {
      return Refused(record, source,
                     "an edit adds table " + TableAt(t.level, t.number) +
                         ", which an edit before deleted from that level (\"file deleted "
                         "before it was inserted\")");
    }
    if (t.is_virtual && !p.backings.count(t.backing)) {
      return Refused(record, source,
                     "virtual table " + TableAt(t.level, t.number) + " is a view of " +
                         Number(t.backing) +
                         ".sst, which is not a backing table (tag 105) at this point");
    }
    p.added.insert(t.number);
    const auto key = std::make_pair(t.level, t.number);
    tables[key] = std::move(t);
  }
  return Status();
}

}  // namespace

Status ReplayPebbleEdit(VersionEdit& edit, const LogRecord& record, std::string_view source,
                        ReplayState& state, std::vector<Finding>&) {
  PebbleReplay& p = state.pebble;
  // Blob files first: a replaced blob file keeps its id and gets a new disk file; its deletion
  // names the old file and then matches nothing, which Pebble's replay ignores.
  for (const BlobFile& b : edit.new_blob_files) p.blob_files[b.id] = b;
  for (const auto& [id, number] : edit.deleted_blob_files) {
    auto it = p.blob_files.find(id);
    if (it != p.blob_files.end() && it->second.number == number) p.blob_files.erase(it);
  }
  BLOOMCODEC_RETURN_IF_ERROR(DeleteTables(edit, record, source, state));
  for (const auto& [number, size] : edit.created_backings) {
    if (p.backings.count(number)) {
      return Refused(record, source,
                     "an edit creates backing table " + Number(number) +
                         " a second time (\"duplicate file backing\", a panic in Pebble)");
    }
    p.backings[number] = BackingTable{number, size, 0};
  }
  BLOOMCODEC_RETURN_IF_ERROR(AddTables(edit, record, source, state));
  // A backing that is no backing (any more) is ignored by Pebble's release builds.
  for (std::uint64_t number : edit.removed_backings) p.backings.erase(number);
  auto& tables = state.tables[0];
  for (const auto& [level, number] : edit.marked_for_compaction) {
    if (!p.added.count(number)) {
      return Refused(record, source,
                     "an edit marks table " + TableAt(level, number) +
                         " for compaction, which no edit added (\"unknown table marked for "
                         "compaction\")");
    }
    auto it = tables.find({level, number});
    if (it != tables.end()) it->second.marked_for_compaction = true;
  }
  return Status();
}

void FinishPebbleReplay(ReplayState& state, Manifest& m) {
  PebbleReplay& p = state.pebble;
  auto& tables = state.tables[0];
  auto refuse = [&](const std::string& what) {
    m.findings.push_back(ManifestFinding(
        Severity::kError, what + ": Pebble refuses to open the database", std::nullopt));
    m.damaged = true;
  };
  for (const auto& [level, numbers] : p.deleted_elsewhere) {
    bool held = false;
    for (const auto& [key, t] : tables) held = held || key.first == level;
    std::string list;
    for (std::uint64_t n : numbers) list += (list.empty() ? "" : ", ") + Number(n);
    if (!held) {
      refuse("edits delete tables from level " + std::to_string(level) + " (" + list +
             ") that never were on it, and the level ends empty (\"No current or added files "
             "but have deleted files\")");
    } else {
      m.findings.push_back(
          ManifestFinding(Severity::kWarning,
                          "edits delete tables from level " + std::to_string(level) + " (" + list +
                              ") that never were on it; Pebble ignores those deletions",
                          std::nullopt));
    }
  }
  for (auto& [key, t] : tables) {
    for (const BlobReference& r : t.blob_references) {
      auto b = p.blob_files.find(r.file_id);
      if (b == p.blob_files.end()) {
        refuse("table " + TableAt(t.level, t.number) + " refers to blob file B" +
               Number(r.file_id) + ", which is not live (\"blob file not found\")");
      } else {
        ++b->second.tables;
      }
    }
    if (!t.is_virtual) continue;
    auto b = p.backings.find(t.backing);
    if (b == p.backings.end()) {
      refuse("virtual table " + TableAt(t.level, t.number) + " is a view of " + Number(t.backing) +
             ".sst, whose backing record an edit removed");
    } else {
      ++b->second.virtual_tables;
    }
  }
  // recoverVersion: a MANIFEST that never set a log number must at least have moved the next
  // file number past 1 (a database created, or a RocksDB database before its first flush).
  if (!m.log_number && (!m.next_file || *m.next_file < 2)) {
    refuse(
        "the MANIFEST sets neither a log number nor a next file number above 1 (\"malformed "
        "manifest file\")");
  }
  for (const auto& [number, b] : p.backings) m.backings.push_back(b);
  for (const auto& [id, b] : p.blob_files) m.blob_files.push_back(b);
}

}  // namespace bloomcodec::manifest
