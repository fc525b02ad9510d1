#include "cassandra/repair/backup.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bloomcodec/input_file.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifest = "manifest.json";
constexpr std::string_view kTemporarySuffix = ".bloomcodec_tmp";

std::string Iso8601(std::time_t t) {
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

// Makes `dir` and the folders above it up to `base` (which exists), each made durable in its
// parent. `like`: the mode and owner the new folders get (the table folder's).
Status MakeDirs(const fs::path& base, const fs::path& dir, const struct stat* like, FileOps& ops) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; p != base && !fs::exists(p, ec); p = p.parent_path()) {
    if (p.empty() || p == p.parent_path()) break;
    missing.push_back(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    BLOOMCODEC_RETURN_IF_ERROR(ops.MakeDir(it->string(), like));
    BLOOMCODEC_RETURN_IF_ERROR(ops.FsyncDir(it->parent_path().string()));
  }
  return Status();
}

// The Data.db names already in a manifest of this tag (another sstable of the run), and when it
// was created.
std::vector<std::string> ManifestFiles(const std::string& path, std::time_t& created) {
  std::vector<std::string> files;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return files;
  const ByteSpan b = in->bytes();
  nlohmann::json doc = nlohmann::json::parse(b.begin(), b.end(), nullptr, false);
  if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_array()) return files;
  for (const auto& f : doc["files"]) {
    if (f.is_string()) files.push_back(f.get<std::string>());
  }
  if (doc.contains("created_at") && doc["created_at"].is_string()) {
    std::tm tm{};
    const std::string text = doc["created_at"].get<std::string>();
    if (::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) != nullptr) created = ::timegm(&tm);
  }
  return files;
}

Status WriteManifest(const fs::path& folder, const Descriptor& d, const std::string& data_name,
                     std::time_t now, const struct stat* like, FileOps& ops) {
  const std::string path = (folder / kManifest).string();
  std::time_t created = now;
  std::vector<std::string> files = ManifestFiles(path, created);
  for (const std::string& f : files) {
    if (f == data_name) return Status();  // already listed (a re-run)
  }
  files.push_back(data_name);
  const std::string text = SnapshotManifest(d, files, created);
  const std::string tmp = path + std::string(kTemporarySuffix);
  BLOOMCODEC_RETURN_IF_ERROR(ops.Remove(tmp));
  BLOOMCODEC_RETURN_IF_ERROR(ops.Write(tmp, AsBytes(text), like));
  BLOOMCODEC_RETURN_IF_ERROR(ops.Fsync(tmp));
  return ops.Rename(tmp, path);
}

}  // namespace

BackupTarget SnapshotBackup(std::string tag) {
  BackupTarget t;
  t.kind = BackupTarget::Kind::kSnapshot;
  t.tag = std::move(tag);
  return t;
}

BackupTarget DirectoryBackup(std::string root, std::string relative) {
  BackupTarget t;
  t.kind = BackupTarget::Kind::kDirectory;
  t.root = std::move(root);
  t.relative = std::move(relative);
  return t;
}

BackupTarget NoBackup() {
  BackupTarget t;
  t.kind = BackupTarget::Kind::kNone;
  return t;
}

std::string RepairSnapshotTag(std::time_t now) {
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
  return "bloomcodec-repair-" + std::string(buf);
}

std::string BackupFolder(const BackupTarget& target, const std::string& sstable_dir) {
  switch (target.kind) {
    case BackupTarget::Kind::kSnapshot:
      return (fs::path(sstable_dir) / "snapshots" / target.tag).string();
    case BackupTarget::Kind::kDirectory:
      return (fs::path(target.root) / target.relative).lexically_normal().string();
    case BackupTarget::Kind::kNone: break;
  }
  return "";
}

std::string SnapshotManifest(const Descriptor& d, std::span<const std::string> data_files,
                             std::time_t created) {
  nlohmann::ordered_json doc;
  doc["files"] = nlohmann::ordered_json::array();
  for (const std::string& f : data_files) doc["files"].push_back(f);
  // 4.1 (nb) and later write when the snapshot was taken and when it expires (never, here).
  // (ScyllaDB's own versions, ms and mt, sort before them.)
  const bool bti = d.sstable_format == "bti";
  if (bti || d.version >= std::string_view("nb")) {
    doc["created_at"] = Iso8601(created);
    doc["expires_at"] = nullptr;
    if (bti || d.version >= std::string_view("oa")) doc["ephemeral"] = false;
  }
  return doc.dump();
}

Status RemoveManifestLeftovers(const std::string& sstable_dir, FileOps& ops) {
  std::error_code ec;
  const fs::path snapshots = fs::path(sstable_dir) / "snapshots";
  if (!fs::is_directory(snapshots, ec)) return Status();
  for (fs::directory_iterator it(snapshots, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path leftover = it->path() / (std::string(kManifest) + std::string(kTemporarySuffix));
    if (fs::exists(leftover, ec)) BLOOMCODEC_RETURN_IF_ERROR(ops.Remove(leftover.string()));
  }
  return Status();
}

Status LinkBackup(const BackupTarget& target, const Descriptor& d, const std::string& sstable_dir,
                  std::span<const std::string> components, const std::string& data_name,
                  std::time_t now, FileOps& ops) {
  if (target.kind == BackupTarget::Kind::kNone) return Status();
  const fs::path folder = BackupFolder(target, sstable_dir);
  BLOOMCODEC_ASSIGN_OR_RETURN(struct stat like, StatPath(sstable_dir));
  const fs::path base =
      target.kind == BackupTarget::Kind::kSnapshot ? fs::path(sstable_dir) : fs::path(target.root);
  std::error_code ec;
  if (!fs::is_directory(base, ec)) return Status::IoError(base.string(), "is not a directory");
  BLOOMCODEC_RETURN_IF_ERROR(MakeDirs(base, folder, &like, ops));
  for (const std::string& c : components) {
    const fs::path to = folder / fs::path(c).filename();
    // A file already there is an older copy of this component (an earlier attempt of this run,
    // or an earlier repair into the same folder): the oldest copy is the one worth keeping.
    if (fs::exists(fs::symlink_status(to, ec))) continue;
    BLOOMCODEC_RETURN_IF_ERROR(ops.Link(c, to.string()));
  }
  // Before 2.0 nodetool wrote no manifest.
  if (target.kind == BackupTarget::Kind::kSnapshot && !components.empty() &&
      (d.sstable_format == "bti" || d.version >= std::string_view("ja"))) {
    BLOOMCODEC_ASSIGN_OR_RETURN(struct stat file_like, StatPath(components.front()));
    BLOOMCODEC_RETURN_IF_ERROR(WriteManifest(folder, d, data_name, now, &file_like, ops));
  }
  return ops.FsyncDir(folder.string());
}

}  // namespace bloomcodec::cassandra
