// An sstable's component files, and which of verify's findings are the filter's own.
#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

#include "cassandra/repair/repair.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

bool IsOneOf(std::string_view kind, std::initializer_list<std::string_view> kinds) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// What verify reports about the filter itself: repair replaces it, so these never refuse.
bool IsTheFiltersOwn(std::string_view kind) {
  return IsOneOf(kind,
                 {finding_kind::kStructure, finding_kind::kFalseNegative, finding_kind::kOverfilled,
                  finding_kind::kUndersized, finding_kind::kMissingFilter, finding_kind::kFpChance,
                  finding_kind::kHashCount, finding_kind::kTrailingBytes});
}

}  // namespace

Result<SstableSet> FindSstableSet(const std::string& path) {
  const fs::path given(path);
  std::string name = given.filename().string();
  if (name.ends_with(kRepairTemporarySuffix)) {
    name.resize(name.size() - kRepairTemporarySuffix.size());
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Descriptor d, ParseDescriptor(name));
  if (d.component.ends_with(".gz")) {
    return Status::InvalidArgument(path + ": a gzipped component is not a live sstable's");
  }
  std::error_code ec;
  const fs::path dir =
      fs::absolute(given.parent_path().empty() ? fs::path(".") : given.parent_path(), ec);
  if (ec) return Status::IoError(path, "cannot resolve its folder: " + ec.message());
  SstableSet set;
  set.dir = dir.lexically_normal().string();
  if (set.dir.size() > 1 && set.dir.back() == '/') set.dir.pop_back();
  const std::string stem = name.substr(0, name.size() - d.component.size());
  set.prefix = (fs::path(set.dir) / stem).string();
  for (fs::directory_iterator it(set.dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (!file.starts_with(stem) || file.ends_with(kRepairTemporarySuffix)) continue;
    if (!it->is_regular_file(ec)) continue;
    Result<Descriptor> c = ParseDescriptor(file);
    if (!c.ok() || c->generation_id != d.generation_id || c->version != d.version) continue;
    set.components.push_back(it->path().string());
  }
  if (ec) return Status::IoError(set.dir, "cannot list the folder: " + ec.message());
  std::sort(set.components.begin(), set.components.end());
  SstableFiles& s = set.files;
  s.descriptor = d;
  s.filter_path = set.prefix + "Filter.db";
  s.index_path = set.prefix + "Index.db";
  s.statistics_path = set.prefix + "Statistics.db";
  for (const std::string& c : set.components) {
    s.has_filter = s.has_filter || c == s.filter_path;
    s.has_index = s.has_index || c == s.index_path;
    s.has_statistics = s.has_statistics || c == s.statistics_path;
  }
  if (set.components.empty()) {
    return Status::IoError(path, "no component of this sstable exists in " + set.dir);
  }
  return set;
}

std::vector<std::string> FilterProblems(const FileReport& report) {
  std::vector<std::string> kinds;
  for (const Finding& f : report.findings) {
    if (f.severity == Severity::kInfo || !IsTheFiltersOwn(f.kind)) continue;
    if (f.kind == finding_kind::kTrailingBytes) continue;  // harmless: the original ignores them
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  }
  return kinds;
}

std::optional<Finding> DamageBesidesTheFilter(const FileReport& report) {
  for (const Finding& f : report.findings) {
    if (IsTheFiltersOwn(f.kind)) continue;
    // Keys that could not be checked (an unknown Data.db compressor) could not be read either.
    if (f.severity == Severity::kError || f.kind == finding_kind::kUnsupported ||
        f.kind == finding_kind::kTemporary) {
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace bloomcodec::cassandra
