// verify: what each path given is (a filter file, a table, a Cassandra data directory, a LevelDB
// database) and which per-format check verifies it. The checks themselves live with their
// formats (cassandra/verify.cc, leveldb/table/verify_table.cc).
#include <filesystem>
#include <optional>
#include <system_error>

#include "bloomcodec/cassandra/descriptor.h"
#include "bloomcodec/cassandra/verify.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/verify.h"
#include "bloomcodec/rocksdb/sst_verify.h"
#include "bloomcodec/verify.h"
#include "verify_codec.h"

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

// A table file name (NNNNNN.ldb / .sst) whose bytes claim no format: a truncated or damaged
// table. Read as one, so the damage is a structure finding at its offset (as inside a database
// directory) rather than an undecidable format.
bool NamedLikeTable(std::string_view path) {
  std::string_view name = WithoutGz(path);
  return name.ends_with(".ldb") || name.ends_with(".sst");
}

Status PlanDirectory(const std::string& dir, const VerifyOptions& options,
                     std::vector<VerifyTask>& tasks) {
  if (options.key_source != KeySource::kNone) {
    return Status::InvalidArgument(
        dir + " is a directory: its keys come from each sstable's Index.db or each table's data "
              "blocks; --keys, --index and --from-table apply to single files");
  }
  if (options.format != nullptr || options.key_kind != KeyKind::kAuto) {
    // Said rather than ignored: a directory's files say what they are (names, table footers),
    // and a database's tables always hold internal keys.
    return Status::InvalidArgument(
        dir + " is a directory: each file's format comes from its name and footer, and a "
              "database's tables hold user keys; --format and --key-kind apply to single files");
  }
  // Before LevelDB: a RocksDB directory has CURRENT and NNNNNN.sst files too.
  if (rocksdb::LooksLikeRocksDb(dir)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, rocksdb::FindSstFiles(dir));
    for (std::string& table : tables) {
      tasks.push_back([table = std::move(table), dir] {
        return rocksdb::VerifySst(table, nullptr, dir);
      });
    }
    return Status();
  }
  if (leveldb::LooksLikeDatabase(dir)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, leveldb::FindTables(dir));
    for (std::string& table : tables) {
      tasks.push_back([table = std::move(table), dir] {
        return leveldb::VerifyTable(table, KeyKind::kUser, nullptr, dir);
      });
    }
    return Status();
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<cassandra::SstableFiles> sstables,
                              cassandra::FindSstables(dir));
  if (sstables.empty()) {
    return Status::InvalidArgument(
        dir + ": nothing to verify: neither a LevelDB database (CURRENT, NNNNNN.ldb / .sst) nor a "
              "Cassandra data directory (no SSTable component names such as "
              "Standard1-hc-1-Filter.db)");
  }
  for (cassandra::SstableFiles& s : sstables) {
    tasks.push_back([s = std::move(s)] { return cassandra::VerifySstable(s); });
  }
  return Status();
}

Status PlanFile(const std::string& path, const VerifyOptions& options,
                std::vector<VerifyTask>& tasks) {
  const FormatCodec* format = options.format;
  if (format == nullptr) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
    format = DetectFormat(WithoutGz(path), in.bytes());
    if (format == nullptr && NamedLikeTable(path)) format = FindFormat("leveldb-table");
    if (format == nullptr) {
      return Status::InvalidArgument("cannot tell the format of " + path +
                                     " from its name or bytes; give --format");
    }
  }
  const KeyList* keys = options.key_source == KeySource::kKeyList ? options.keys : nullptr;
  const std::string_view name = format->name();
  if (name == "leveldb-table") {
    if (options.key_source == KeySource::kIndexDb) {
      return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                     " is a LevelDB table (its keys: --from-table)");
    }
    std::string group = TrimSlashes(fs::path(path).parent_path().string());
    KeyKind kind = options.key_kind;
    // An unknown key kind the check needs is the caller's to give (--key-kind), not damage.
    BLOOMCODEC_RETURN_IF_ERROR(leveldb::CheckKeyKindKnown(path, kind, keys != nullptr));
    tasks.push_back([path, kind, keys, group] {
      return leveldb::VerifyTable(path, kind, keys, group);
    });
    return Status();
  }
  if (name == "rocksdb-sst") {
    if (options.key_source == KeySource::kIndexDb) {
      return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                     " is a RocksDB SST (its keys: --from-table)");
    }
    if (options.key_kind == KeyKind::kPlain) {
      return Status::InvalidArgument("--key-kind plain does not apply to rocksdb-sst: " + path +
                                     " holds internal keys");
    }
    // The table's own keys are always checked; --from-table only says so explicitly.
    std::string group = TrimSlashes(fs::path(path).parent_path().string());
    tasks.push_back([path, keys, group] { return rocksdb::VerifySst(path, keys, group); });
    return Status();
  }
  if (options.key_source == KeySource::kFromTable) {
    return Status::InvalidArgument("--from-table reads a table's own keys (leveldb-table, "
                                   "rocksdb-sst); " + path +
                                   " is " + std::string(name));
  }
  // A Cassandra Filter.db (with keys from --keys, --index or the Index.db beside it).
  if (std::optional<cassandra::FilterFormat> format_of = cassandra::FilterFormatForName(name)) {
    const cassandra::FilterFormat filter_format = *format_of;
    std::string version;
    if (auto d = cassandra::ParseDescriptor(WithoutGz(path)); d.ok()) version = d->version;
    std::string index;
    if (options.key_source == KeySource::kIndexDb) {
      index = options.index_path;
      // The Index.db was named by the user: if it cannot be opened at all that is bad input
      // (exit 2); damage inside it is a finding of the verification.
      BLOOMCODEC_RETURN_IF_ERROR(InputFile::Open(index).status());
    } else if (options.key_source == KeySource::kNone) {
      // Without a key source, the sstable's own Index.db next to it (same name up to the
      // component) supplies the keys, as in a directory.
      std::string_view name = WithoutGz(path);
      if (name.ends_with("Filter.db")) {
        std::string sibling = std::string(name.substr(0, name.size() - 9)) + "Index.db";
        std::error_code ec;
        if (fs::is_regular_file(sibling, ec)) index = sibling;
      }
    }
    tasks.push_back([path, filter_format, version, keys, index] {
      return cassandra::VerifyFilterFile(path, filter_format, version, keys, index);
    });
    return Status();
  }
  if (options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index applies to Cassandra Filter.db files; " +
                                   path + " is " + std::string(name));
  }
  ProbeOptions probe;
  probe.key_kind = options.key_kind;
  tasks.push_back([path, format, keys, probe] { return VerifyWithCodec(path, format, keys, probe); });
  return Status();
}

}  // namespace

Result<std::vector<VerifyTask>> PlanVerify(std::span<const std::string> paths,
                                           const VerifyOptions& options) {
  if (paths.empty()) return Status::InvalidArgument("PATH is required (a file or a directory)");
  if (options.key_source == KeySource::kKeyList && options.keys == nullptr) {
    return Status::InvalidArgument("PlanVerify: kKeyList without keys");
  }
  std::vector<VerifyTask> tasks;
  for (const std::string& path : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      return Status::IoError(path, ec ? ec.message() : "no such file or directory");
    }
    if (fs::is_directory(st)) {
      BLOOMCODEC_RETURN_IF_ERROR(PlanDirectory(TrimSlashes(path), options, tasks));
    } else {
      BLOOMCODEC_RETURN_IF_ERROR(PlanFile(path, options, tasks));
    }
  }
  return tasks;
}

}  // namespace bloomcodec
