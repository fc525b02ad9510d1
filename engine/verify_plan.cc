// verify's planning: what each path given is (a file of some format, a directory some family
// recognises) and which check verifies it. The checks live with their families, which register
// them (engine/family.h); this file only asks the families in turn.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include "bloomcodec/input_file.h"
#include "bloomcodec/verify.h"
#include "engine/family.h"
#include "engine/live_files.h"
#include "engine/verify_codec.h"

namespace bloomcodec {
namespace {

namespace fs = std::filesystem;

std::string_view WithoutGz(std::string_view path) {
  return path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
}

std::string TrimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The families that recognise directories, the most specific first.
std::vector<const engine::Family*> DirectoryFamilies() {
  std::vector<const engine::Family*> families;
  for (const engine::Family* f : engine::Families()) {
    if (f->verify.plan_directory) families.push_back(f);
  }
  std::stable_sort(families.begin(), families.end(), [](const auto* a, const auto* b) {
    return a->verify.directory_rank < b->verify.directory_rank;
  });
  return families;
}

// The family flags (and --format) a directory refuses. A flag with words of its own says them;
// the others, with --format, share one message that names them all. Said rather than ignored: a
// directory's files say what they are (names, table footers), and a database's tables always
// hold internal keys.
Status CheckDirectoryFlags(const std::string& dir, const VerifyOptions& options) {
  const std::vector<FamilyFlag> flags = FamilyFlags(Subcommand::kVerify);
  for (const FamilyFlag& f : flags) {
    if (f.decl->directories == DirectoryUse::kOwnRefusal && f.decl->is_set(options.family)) {
      return f.decl->refuse({dir, "a directory", true});
    }
  }
  bool refused = options.format != nullptr;
  std::vector<std::string_view> names = {"--format"};
  for (const FamilyFlag& f : flags) {
    if (f.decl->directories != DirectoryUse::kSingleFilesOnly) continue;
    refused = refused || f.decl->is_set(options.family);
    if (std::find(names.begin(), names.end(), f.decl->name) == names.end()) {
      names.push_back(f.decl->name);
    }
  }
  if (!refused) return Status();
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
  }
  return Status::InvalidArgument(dir +
                                 " is a directory: each file's format comes from its name and "
                                 "footer, and a database's tables hold user keys; " +
                                 list + (names.size() == 1 ? " applies" : " apply") +
                                 " to single files");
}

Status PlanDirectory(const std::string& dir, const VerifyOptions& options,
                     std::vector<VerifyTask>& tasks) {
  if (options.key_source != KeySource::kNone) {
    return Status::InvalidArgument(
        dir +
        " is a directory: its keys come from each sstable's Index.db or each table's data "
        "blocks; --keys, --index and --from-table apply to single files");
  }
  BLOOMCODEC_RETURN_IF_ERROR(CheckDirectoryFlags(dir, options));
  std::vector<std::string_view> described;
  for (const engine::Family* family : DirectoryFamilies()) {
    BLOOMCODEC_ASSIGN_OR_RETURN(bool planned, family->verify.plan_directory(dir, options, tasks));
    if (planned) return Status();
    if (!family->verify.directory_description.empty()) {
      described.push_back(family->verify.directory_description);
    }
  }
  std::string what;
  for (std::size_t i = 0; i < described.size(); ++i) {
    what += (i == 0                      ? "neither "
             : i + 1 == described.size() ? " nor "
                                         : ", ") +
            std::string(described[i]);
  }
  return Status::InvalidArgument(dir + ": nothing to verify: " + what);
}

const FormatCodec* DecideFormat(const std::string& path, ByteSpan bytes) {
  if (const FormatCodec* f = DetectFormat(WithoutGz(path), bytes)) return f;
  for (const engine::Family* family : engine::Families()) {
    if (!family->verify.format_by_name_only) continue;
    if (const FormatCodec* f = family->verify.format_by_name_only(path)) return f;
  }
  return nullptr;
}

bool IsTable(const engine::Family* family, const FormatCodec* format) {
  const auto& tables = family->keys.tables;
  return std::find(tables.begin(), tables.end(), format) != tables.end();
}

std::string TableFormatList() {
  std::string list;
  for (const engine::Family* family : engine::Families()) {
    for (const FormatCodec* f : family->keys.tables) {
      list += (list.empty() ? "" : ", ") + std::string(f->name());
    }
  }
  return list;
}

Status PlanFile(const std::string& path, const VerifyOptions& options,
                std::vector<VerifyTask>& tasks) {
  const FormatCodec* format = options.format;
  if (format == nullptr) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
    format = DecideFormat(path, in.bytes());
    if (format == nullptr) {
      return Status::InvalidArgument("cannot tell the format of " + path +
                                     " from its name or bytes; give --format");
    }
  }
  const KeyStream* keys = options.key_source == KeySource::kKeyList ? options.keys : nullptr;
  const engine::Family* family = engine::FamilyOf(format);
  const bool table = family && IsTable(family, format);
  if (options.key_source == KeySource::kFromTable && !table) {
    return Status::InvalidArgument("--from-table reads a table's own keys (" + TableFormatList() +
                                   "); " + path + " is " + std::string(format->name()));
  }
  BLOOMCODEC_RETURN_IF_ERROR(
      CheckFamilyFlags(Subcommand::kVerify, options.family, {.path = path, .format = format}));
  if (family && family->verify.plan_file) {
    const std::string group = TrimSlashes(fs::path(path).parent_path().string());
    BLOOMCODEC_ASSIGN_OR_RETURN(
        bool planned, family->verify.plan_file({path, format, options, keys, group}, tasks));
    if (planned) return Status();
  }
  if (options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index applies to Cassandra Filter.db files; " + path +
                                   " is " + std::string(format->name()));
  }
  ProbeOptions probe;
  probe.family = options.family;
  tasks.push_back(
      [path, format, keys, probe] { return VerifyWithCodec(path, format, keys, probe); });
  return Status();
}

}  // namespace

Result<Document> InspectDirectory(const std::string& path) {
  const std::string dir = TrimSlashes(path);
  for (const engine::Family* family : DirectoryFamilies()) {
    if (!family->verify.inspect_directory) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<Document> doc, family->verify.inspect_directory(dir));
    if (doc) {
      Document out;
      out["file"] = path;  // as given, like every inspect document
      out["directory"] = dir;
      out["family"] = std::string(family->name);
      out.update(*doc);
      return out;
    }
  }
  return Status::InvalidArgument(dir +
                                 ": not a database directory inspect reads (LevelDB or RocksDB: "
                                 "CURRENT and its MANIFEST; Pebble: marker files or CURRENT, and "
                                 "its MANIFEST)");
}

// docs/schema/inspect.schema.json's version: additive changes keep it; a field removed, renamed
// or retyped raises it (docs/cli.md, "JSON").
constexpr int kInspectJsonSchemaVersion = 1;

Document InspectDocument(Document files) {
  Document out;
  out["schema_version"] = kInspectJsonSchemaVersion;
  out["files"] = std::move(files);
  return out;
}

Result<Document> InspectFile(ByteSpan bytes, std::string_view path, const FormatCodec& format) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Document facts, format.Inspect(bytes, path));
  Document doc;
  doc["file"] = std::string(path);
  doc.update(facts);
  return doc;
}

Result<std::vector<VerifyTask>> PlanVerify(std::span<const std::string> paths,
                                           const VerifyOptions& options) {
  if (paths.empty()) return Status::InvalidArgument("PATH is required (a file or a directory)");
  if (options.key_source == KeySource::kKeyList && options.keys == nullptr) {
    return Status::InvalidArgument("PlanVerify: kKeyList without keys");
  }
  std::vector<VerifyTask> tasks;
  // What was there when the run started: a file of it that is gone when a task reads it was
  // deleted during the run (engine/live_files.h), not missing all along.
  auto listed = std::make_shared<engine::ListedFiles>();
  for (const std::string& path : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      return Status::IoError(path, ec ? ec.message() : "no such file or directory");
    }
    if (fs::is_directory(st)) {
      listed->AddTree(path);
      BLOOMCODEC_RETURN_IF_ERROR(PlanDirectory(TrimSlashes(path), options, tasks));
    } else {
      listed->AddFile(path);
      BLOOMCODEC_RETURN_IF_ERROR(PlanFile(path, options, tasks));
    }
  }
  if (!options.index_path.empty()) listed->AddFile(options.index_path);
  // Listed again after the families listed: a file created between the two listings and gone
  // before its read is still known to have been there.
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) listed->AddTree(path);
  }
  for (VerifyTask& task : tasks) task = engine::WatchedTask(std::move(task), listed);
  return tasks;
}

}  // namespace bloomcodec
