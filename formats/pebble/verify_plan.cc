// How verify checks the Pebble family's files: a Pebble table given by itself, or a folder of
// them, goes through the block-table verify pipeline (table/verify.h); the filter formats through
// the generic verifier; a Pebble database directory (pebble::DetectDatabase) through its MANIFEST
// (database_verify.cc).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bloomcodec/filter_stats.h"
#include "formats/pebble/family.h"
#include "pebble/bloom.h"
#include "pebble/database.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"

namespace bloomcodec::pebble {
namespace {

namespace fs = std::filesystem;

// The file's last 8 bytes as a little-endian magic (0 when it is shorter than a footer).
std::uint64_t TailMagic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return 0;
  const std::streamoff size = in.tellg();
  if (size < 48) return 0;
  in.seekg(size - 8);
  std::uint8_t tail[8];
  if (!in.read(reinterpret_cast<char*>(tail), 8)) return 0;
  std::uint64_t magic = 0;
  for (int i = 7; i >= 0; --i) magic = magic << 8 | tail[i];
  return magic;
}

// A Pebble database (database_verify.cc), or a folder of Pebble tables (a copy of tables, a test
// data folder): no CURRENT, MANIFEST or marker file, and every file that ends in a table magic
// ends in Pebble's. Such a folder is one group of tables; any other is left to the other
// families.
Result<bool> PlanDirectory(const std::string& dir, const VerifyOptions& options,
                           std::vector<VerifyTask>& tasks) {
  // A repair's tap (table/rebuild_tap.h), set by the library's repair only.
  std::shared_ptr<RebuildTap> tap;
  if (const RebuildTapOption* o = options.family.Find<RebuildTapOption>()) tap = o->tap;
  // A Pebble database goes before LevelDB's and RocksDB's planners, which would read its
  // MANIFEST in their own dialect; DetectDatabase answers kNone for theirs (a RocksDB OPTIONS
  // names rocksdb_version; their MANIFESTs hold no field only Pebble writes).
  if (DetectDatabase(dir) != Evidence::kNone) {
    PlanDatabaseDirectory(dir, tasks, std::move(tap));
    return true;
  }
  std::vector<std::string> tables;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "CURRENT" || name.starts_with("MANIFEST-") || name.starts_with("marker.")) {
      return false;
    }
    if (!it->is_regular_file(ec)) continue;
    const std::uint64_t magic = TailMagic(it->path());
    if (magic == kPebbleTableMagic) {
      tables.push_back(it->path().string());
    } else if (magic == blocktable::kLevelDbTableMagic ||
               magic == blocktable::kBlockBasedTableMagic) {
      return false;
    }
  }
  if (tables.empty()) return false;
  std::sort(tables.begin(), tables.end());
  for (std::string& table : tables) {
    tasks.push_back([table = std::move(table), dir, tap] {
      return VerifyPebbleTable(table, nullptr, dir, tap.get());
    });
  }
  return true;
}

Result<std::optional<Document>> InspectDirectory(const std::string& dir) {
  if (DetectDatabase(dir) == Evidence::kNone) return std::optional<Document>();
  return std::optional<Document>(InspectDatabase(ReadDatabase(dir)));
}

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kTable)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a Pebble table (its keys: --from-table)");
  }
  // The table's own keys are always checked; --from-table only says so explicitly.
  const std::string group = plan.group;
  const KeyStream* keys = plan.keys;
  tasks.push_back([path, keys, group] { return VerifyPebbleTable(path, keys, group); });
  return true;
}

// The fill of a pebble-bloom file the generic verifier judges (a binary fuse filter's
// fingerprints are about half ones whatever it holds: no fill to judge). A filter the reader
// refuses is the codec's error when it is probed.
std::vector<engine::FilterFill> FiltersOf(const FormatCodec* format, ByteSpan file,
                                          std::string_view source, FileReport&) {
  std::vector<engine::FilterFill> filters;
  if (format != Codec(FormatId::kBloom)) return filters;
  Result<BloomReader> f = BloomReader::Parse(file, source);
  if (!f.ok() || f->empty()) return filters;
  engine::FilterFill one;
  one.stats = ComputeFillStatistics(f->bit_count(), f->bits_set(), f->num_probes());
  filters.push_back(one);
  return filters;
}

}  // namespace

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.plan_directory = PlanDirectory;
  // Before RocksDB and LevelDB: a Pebble database has CURRENT (and often OPTIONS) like theirs,
  // and LevelDB's folder-of-tables rule takes any *.sst.
  hooks.directory_rank = -1;
  hooks.inspect_directory = InspectDirectory;
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  return hooks;
}

}  // namespace bloomcodec::pebble
