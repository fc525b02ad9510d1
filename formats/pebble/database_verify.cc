// verify of a Pebble database directory (database.h reads it as Pebble opens it): the MANIFEST's
// live tables through manifest::PlanDatabase, as for LevelDB and RocksDB, each table verified by
// its own magic the way Pebble's reader opens every format it reads (FORMAT.md §2.2), and what
// Pebble's OPTIONS and reads add: a level whose filter policy is `none`, and L6, whose filters
// Pebble's reads never consult (FORMAT.md §7.3).
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/footer.h"
#include "bloomcodec/input_file.h"
#include "formats/pebble/family.h"
#include "leveldb/table/verify.h"
#include "manifest/database_plan.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/database.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"
#include "rocksdb/sst/prefix_extractor.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/table_files.h"
#include "rocksdb/sst/verify.h"

namespace bloomcodec::pebble {
namespace {

namespace fs = std::filesystem;

// Pebble's last level: its reads build L6 table iterators with NeverUseFilterBlock unless
// IterOptions.UseL6Filters is set, which DB.Get never does (file_cache.go, get.go; FORMAT.md
// §7.3).
constexpr int kUnfilteredLevel = 6;

// The magic a table file ends in (read through InputFile, so that a .gz copy answers too).
std::uint64_t MagicOf(const std::string& path) {
  Result<InputFile> in = InputFile::Open(path);
  return in.ok() ? blocktable::TrailingMagic(in->bytes()) : 0;
}

// A RocksDB-format table as Pebble's reader sees it. Pebble's writer records a comparer that has
// a Split as the prefix extractor (rocksdb.prefix.extractor.name = the comparer's name, whole-key
// filtering off) and puts key[:Split(key)] in the filter [P1 sstable/writer.go]. The default
// comparer's Split is the whole key (FORMAT.md §7.1): RocksDB's noop extractor asks exactly
// that. Other comparers' Split is not known here: the SST verifier's own rules stand (a custom
// extractor without whole-key filtering is `unsupported`).
FileReport VerifyRocksDbFormatTable(const std::string& path, const std::string& group) {
  std::optional<rocksdb::PrefixExtractor> split;
  if (Result<InputFile> in = InputFile::Open(path); in.ok()) {
    if (Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), path);
        sst.ok() && sst->properties()) {
      const std::optional<std::string> extractor =
          sst->properties()->String("rocksdb.prefix.extractor.name");
      if (extractor == colblk::kBytewiseComparatorName &&
          sst->comparator_name() == colblk::kBytewiseComparatorName) {
        split = rocksdb::PrefixExtractor::FromSpec("noop").value();
      }
    }
  }
  return rocksdb::VerifySst(path, nullptr, group, split);
}

// A database table by its magic: Pebble's (Pebblev1 and later) through the Pebble table verifier;
// RocksDB's block-based magic (RocksDBv2, what format major versions 1 to 4 write) and LevelDB's
// magic with RocksDB's properties (Pebble's TableFormatLevelDB writes them) as a single such file
// is verified (rocksdb-sst), with the default comparer's Split; LevelDB's magic without them as a
// LevelDB database table (internal keys). Anything else (a damaged or cut footer) is judged as a
// Pebble table: its structure finding names the offset and Pebble's magic.
FileReport VerifyDatabaseTable(const std::string& path, const std::string& group, RebuildTap* tap) {
  const std::uint64_t magic = MagicOf(path);
  if (magic == blocktable::kBlockBasedTableMagic) return VerifyRocksDbFormatTable(path, group);
  if (magic == blocktable::kLevelDbTableMagic) {
    Result<InputFile> in = InputFile::Open(path);
    if (in.ok() && rocksdb::IsRocksDbFormatVersion0Table(in->bytes(), path)) {
      return VerifyRocksDbFormatTable(path, group);
    }
    return leveldb::VerifyTable(path, KeyKind::kUser, nullptr, group);
  }
  return VerifyPebbleTable(path, nullptr, group, tap);
}

// The first and last user keys of a database table and its range deletions' bounds.
Result<manifest::TableKeyRange> KeyRangeOf(const std::string& path) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
  if (!HasPebbleTableMagic(in.bytes())) return rocksdb::SstKeyRange(path);
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable table, PebbleTable::Open(in.bytes(), path));
  std::vector<blocktable::BlockHandle> blocks;
  BLOOMCODEC_RETURN_IF_ERROR(blocktable::ForEachIndexedBlock(
      table.index_layout(),
      [&](const blocktable::IndexEntry& e) { return table.DecodeIndexValue(e); },
      [&](const blocktable::BlockHandle& h) { return table.ReadBlock(h, "index partition"); },
      [&](ByteSpan, const blocktable::BlockHandle& h) {
        blocks.push_back(h);
        return Status();
      }));
  manifest::TableKeyRange range;
  BLOOMCODEC_RETURN_IF_ERROR(manifest::FirstAndLastKeys(
      blocks, [&](const blocktable::BlockHandle& h) { return table.ReadBlock(h, "data block"); },
      blocktable::KeyOrder::kInternal, range));
  BLOOMCODEC_RETURN_IF_ERROR(table.ForEachRangeDeletion([&](ByteSpan start, ByteSpan end) {
    const ByteSpan user = manifest::UserKey(start);
    range.tombstone_bounds.emplace_back(user.begin(), user.end());
    range.tombstone_bounds.emplace_back(end.begin(), end.end());
    return Status();
  }));
  return range;
}

// What Pebble's OPTIONS and reads add to a live table's report (see kUnfilteredLevel).
void AdjustForLevel(const std::map<int, std::string>& policies, const manifest::LiveTable& live,
                    FileReport& r) {
  const int level = live.meta.level;
  const auto policy = policies.find(level);
  if (policy != policies.end() && policy->second == "none") {
    for (Finding& f : r.findings) {
      if (f.kind != finding_kind::kNoFilter || f.severity != Severity::kWarning) continue;
      f.severity = Severity::kInfo;
      f.message = "no filter, as OPTIONS asks for level " + std::to_string(level) +
                  " (filter_policy=none): every lookup there reads a data block";
    }
  }
  if (level == kUnfilteredLevel) r.filter_unread_at_level = true;
}

std::vector<std::string> TableFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsTableFileName(it->path().filename().string()) && it->is_regular_file(ec)) {
      out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void PlanDatabaseDirectory(const std::string& dir, std::vector<VerifyTask>& tasks,
                           std::shared_ptr<RebuildTap> tap) {
  Database db = ReadDatabase(dir);
  for (FileReport& r : OtherFileReports(db)) tasks.push_back([r = std::move(r)] { return r; });
  std::map<int, std::string> policies;
  if (db.identity.options) policies = db.identity.options->filter_policy;
  const auto verify = [tap](const std::string& path, const std::string& group) {
    return VerifyDatabaseTable(path, group, tap.get());
  };
  manifest::TableCheck check{kTableFormatName, verify, KeyRangeOf,
                             [policies](const manifest::LiveTable& live, FileReport& r) {
                               AdjustForLevel(policies, live, r);
                             }};
  manifest::PlanDatabase(dir, std::move(db.view), check, TableFiles(dir), tasks);
}

}  // namespace bloomcodec::pebble
