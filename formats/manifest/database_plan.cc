// verify's plan for a database directory read through its MANIFEST (see database_plan.h).
#include "manifest/database_plan.h"

#include <filesystem>
#include <map>
#include <memory>

namespace bloomcodec::manifest {
namespace {

namespace fs = std::filesystem;

std::string KeyText(ByteSpan key) { return key.empty() ? std::string("\"\"") : ToHex(key); }

bool SameKey(ByteSpan a, const ByteVector& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// The key-range finding of a live table, or nothing when its keys match the MANIFEST.
// A live table that ends with no table magic we know (blocktable's `unknown`): its name alone
// did not make it a table, but the MANIFEST, the writer's own record, says it is one, so the
// failure is damage (cut short or overwritten), an error at the same offset.
void ListedTableIsDamaged(FileReport& report) {
  for (Finding& f : report.findings) {
    if (f.kind != finding_kind::kUnknown) continue;
    std::string magic;
    for (const auto& [name, value] : f.fields) {
      if (name == "magic") magic = value;
    }
    f.severity = Severity::kError;
    f.kind = std::string(finding_kind::kStructure);
    f.message = "the MANIFEST lists this table, but its last 8 bytes " + magic +
                " are no table magic: cut short or overwritten";
  }
}

// A table no live version references is what a writer leaves when it stops in the middle of a
// flush or a compaction (or before it deletes what a compaction replaced): the originals never
// read it and delete it at their next open, so nothing in it can hurt a read. Whatever verify
// found in it is reported, as info: a half-written table is no damage of the database.
void LeftoverIsNotDamage(FileReport& report) {
  for (Finding& f : report.findings) {
    if (f.severity == Severity::kInfo) continue;
    f.severity = Severity::kInfo;
    f.message =
        "in a table no live version references (a writer's leftover, never read): " + f.message;
  }
}

void CheckKeyRange(const LiveTable& live, const TableCheck& check, FileReport& report) {
  // A damaged or unreadable table has its finding already; its keys say nothing about the range.
  for (const Finding& f : report.findings) {
    if (f.kind == finding_kind::kStructure || f.kind == finding_kind::kUnreadable) return;
  }
  Result<TableKeyRange> range = check.key_range(live.path);
  if (!range.ok()) return;  // damage: verify's structure finding says it already
  // A Pebble table with range keys (tag 104): its overall bounds may be a range key's, which the
  // point keys and range deletions read here do not show; its point-key bounds are compared.
  const ByteVector& low =
      live.meta.point_keys ? live.meta.point_keys->smallest : live.meta.smallest;
  const ByteVector& high = live.meta.point_keys ? live.meta.point_keys->largest : live.meta.largest;
  const ByteSpan smallest = UserKey(ByteSpan(low.data(), low.size()));
  const ByteSpan largest = UserKey(ByteSpan(high.data(), high.size()));
  auto bound = [&](ByteSpan want) {
    for (const ByteVector& b : range->tombstone_bounds) {
      if (SameKey(want, b)) return true;
    }
    return false;
  };
  std::string wrong;
  if (range->empty) {
    if (!bound(smallest) || !bound(largest)) wrong = "the table holds no key";
  } else {
    if (!SameKey(smallest, range->first) && !bound(smallest)) {
      wrong = "its first key is " + KeyText(range->first) + ", the MANIFEST's smallest " +
              KeyText(smallest);
    }
    if (!SameKey(largest, range->last) && !bound(largest)) {
      wrong += (wrong.empty() ? "" : "; ") + std::string("its last key is ") +
               KeyText(range->last) + ", the MANIFEST's largest " + KeyText(largest);
    }
  }
  if (!wrong.empty()) {
    report.Add(Severity::kError, finding_kind::kKeyRange,
               "the table's keys disagree with the MANIFEST (" + live.column_family + ", level " +
                   std::to_string(live.meta.level) + ", table " + std::to_string(live.meta.number) +
                   "): " + wrong + "; reads of keys outside the MANIFEST's range skip the table");
  }
}

std::string Bounds(const TableMeta& meta) {
  return KeyText(UserKey(ByteSpan(meta.smallest.data(), meta.smallest.size()))) + " to " +
         KeyText(UserKey(ByteSpan(meta.largest.data(), meta.largest.size())));
}

// A Pebble backing file's virtual tables, each with its level, bounds and the synthetic prefix
// and suffix its keys show (its reads cut the prefix off before asking the backing's filter,
// pebble/table/table_reader.h).
std::string VirtualTables(const std::vector<LiveTable>& views) {
  std::string out;
  for (const LiveTable& v : views) {
    out += (out.empty() ? "" : ", ") + std::to_string(v.meta.number) + " (level " +
           std::to_string(v.meta.level) + ", keys " + Bounds(v.meta);
    if (v.meta.synthetic_prefix) {
      out += ", synthetic prefix " +
             KeyText(ByteSpan(v.meta.synthetic_prefix->data(), v.meta.synthetic_prefix->size()));
    }
    if (v.meta.synthetic_suffix) {
      out += ", synthetic suffix " +
             KeyText(ByteSpan(v.meta.synthetic_suffix->data(), v.meta.synthetic_suffix->size()));
    }
    out += ")";
  }
  return out;
}

// The missing-table report of a live table (`views`: the virtual tables of a missing backing).
FileReport MissingTableReport(const LiveTable& live, const std::vector<LiveTable>& views,
                              const TableCheck& check, const std::string& group,
                              const std::string& manifest_path) {
  FileReport r;
  r.path = live.path;
  r.format = std::string(check.format);
  r.group = group;
  r.level = live.meta.level;
  r.column_family = live.column_family;
  r.manifest = manifest_path;
  const std::string what = views.empty() ? "table " + std::to_string(live.meta.number) + " (" +
                                               std::to_string(live.meta.size) + " bytes, level " +
                                               std::to_string(live.meta.level) + ", keys " +
                                               Bounds(live.meta) + ")"
                                         : "backing table " + std::to_string(live.meta.backing) +
                                               " of virtual tables " + VirtualTables(views);
  r.Add(Severity::kError, finding_kind::kMissingTable,
        "the MANIFEST lists " + what + ", but the file is missing: reads of those keys fail");
  return r;
}

// What a backing file's report says about the virtual tables that read it.
void AddVirtualNote(const std::vector<LiveTable>& views, FileReport& r) {
  r.Add(Severity::kInfo, finding_kind::kManifest,
        "the backing file of virtual table" + std::string(views.size() > 1 ? "s " : " ") +
            VirtualTables(views) +
            ": checked once, as a whole (each virtual table reads part of its keys; their "
            "bounds are not compared with the file's keys)");
}

}  // namespace

Status FirstAndLastKeys(
    const std::vector<blocktable::BlockHandle>& blocks,
    const std::function<Result<blocktable::Block>(const blocktable::BlockHandle&)>& read,
    blocktable::KeyOrder order, TableKeyRange& range) {
  std::size_t first_block = blocks.size();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block block, read(blocks[i]));
    blocktable::BlockIterator it(block, order);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    if (!it.valid()) continue;
    const ByteSpan user = UserKey(it.key());
    range.first.assign(user.begin(), user.end());
    range.empty = false;
    first_block = i;
    break;
  }
  for (std::size_t i = blocks.size(); i-- > first_block;) {
    BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block block, read(blocks[i]));
    blocktable::BlockIterator it(block, order);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    if (!it.valid()) continue;
    while (it.valid()) {
      const ByteSpan user = UserKey(it.key());
      range.last.assign(user.begin(), user.end());
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    break;
  }
  return Status();
}

std::string GroupOf(const std::string& dir, const std::string& column_family) {
  return column_family.empty() || column_family == "default" ? dir : dir + ":" + column_family;
}

void PlanDatabase(const std::string& dir, DatabaseView view, const TableCheck& check,
                  const std::vector<std::string>& fallback, std::vector<VerifyTask>& tasks) {
  const bool fell_back = !view.from_manifest;
  const std::string fallback_note =
      "verify falls back to the directory listing: every table file is taken as live, its "
      "level unknown (the fp rate takes every table as consulted)";
  if (!view.current_findings.empty()) {
    FileReport r;
    r.path = view.current_path;
    r.findings = view.current_findings;
    if (fell_back) r.Add(Severity::kInfo, finding_kind::kManifest, fallback_note);
    tasks.push_back([r] { return r; });
  }
  if (!view.manifest_findings.empty() || !view.elsewhere.empty()) {
    FileReport r;
    r.path = view.manifest_path;
    r.findings = view.manifest_findings;
    for (const std::string& t : view.elsewhere) {
      r.Add(Severity::kInfo, finding_kind::kManifest,
            "live table " + t + " lies in another of the database's paths: not checked");
    }
    if (fell_back && view.current_findings.empty()) {
      r.Add(Severity::kInfo, finding_kind::kManifest, fallback_note);
    }
    tasks.push_back([r] { return r; });
  }
  if (fell_back) {
    for (const std::string& table : fallback) {
      tasks.push_back([table, dir, verify = check.verify] { return verify(table, dir); });
    }
    return;
  }
  const std::string manifest_path = view.manifest_path;
  // A backing file shared by virtual tables is verified once: at its first virtual table, with
  // the others named in that report.
  std::map<std::string, std::vector<const LiveTable*>> sharing;
  for (const LiveTable& live : view.live) {
    if (live.meta.is_virtual) sharing[live.path].push_back(&live);
  }
  for (const LiveTable& live : view.live) {
    std::vector<LiveTable> views;
    if (live.meta.is_virtual) {
      std::vector<const LiveTable*>& shared = sharing[live.path];
      if (shared.empty() || shared.front() != &live) continue;  // reported with the first
      for (const LiveTable* v : shared) views.push_back(*v);
    }
    const std::string group = GroupOf(dir, live.column_family);
    if (live.missing) {
      tasks.push_back(
          [r = MissingTableReport(live, views, check, group, manifest_path)] { return r; });
      continue;
    }
    tasks.push_back([live, views, group, manifest_path, check] {
      FileReport r = check.verify(live.path, group);
      ListedTableIsDamaged(r);
      r.level = live.meta.level;
      r.column_family = live.column_family;
      r.manifest = manifest_path;
      if (!views.empty()) {
        AddVirtualNote(views, r);
      } else if (!live.meta.range_keys || live.meta.point_keys) {
        // A table of range keys only holds no point key to compare.
        CheckKeyRange(live, check, r);
      }
      if (check.adjust) check.adjust(live, r);
      return r;
    });
  }
  for (const std::string& path : view.obsolete) {
    tasks.push_back([path, dir, manifest_path, verify = check.verify] {
      FileReport r = verify(path, dir);
      LeftoverIsNotDamage(r);
      r.group_role = GroupRole::kObsolete;
      r.Add(Severity::kInfo, finding_kind::kObsolete,
            "no live version of " + fs::path(manifest_path).filename().string() +
                " references this table: a read never consults it (left out of the fp rate)");
      return r;
    });
  }
}

}  // namespace bloomcodec::manifest
