// The LevelDB and RocksDB table rewrites and checks of a repair (see table_rewriters.h).
#include "lsmrepair/table_rewriters.h"

#include <algorithm>

#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::lsmrepair {
namespace {

// The rewrite as a kept prefix of `file` and a new tail; nullopt when it equals `file`.
std::optional<TableRewrite> AsRewrite(ByteSpan file, const ByteVector& rewritten) {
  if (std::equal(file.begin(), file.end(), rewritten.begin(), rewritten.end())) {
    return std::nullopt;
  }
  const std::size_t limit = std::min(file.size(), rewritten.size());
  const auto diff = std::mismatch(file.begin(), file.begin() + limit, rewritten.begin());
  TableRewrite r;
  r.kept_prefix = static_cast<std::uint64_t>(diff.first - file.begin());
  r.tail.assign(rewritten.begin() + static_cast<std::ptrdiff_t>(r.kept_prefix), rewritten.end());
  return r;
}

// `old_filter`: the table's filter is the one a repair replaces, so a damaged filter block alone
// does not stop it (a rewritten table's is checked like every other block).
Result<leveldb::TableReader> OpenLevelDbTable(ByteSpan file, const std::string& source,
                                              bool old_filter) {
  leveldb::TableOpenOptions open;
  open.verify_checksums = true;
  open.verify_filter_checksum = !old_filter;
  open.key_kind = KeyKind::kUser;
  return leveldb::TableReader::Open(file, source, open);
}

template <typename Reader>
Result<std::uint64_t> CountEntries(const Reader& reader) {
  std::uint64_t n = 0;
  BLOOMCODEC_RETURN_IF_ERROR(reader.ForEachEntry([&](ByteSpan, ByteSpan, const auto&) {
    ++n;
    return Status();
  }));
  return n;
}

Status SameEntryCount(const std::string& source, std::uint64_t old_count, std::uint64_t new_count) {
  if (old_count == new_count) return Status();
  return Status::Internal(source + ": the rewritten table holds " + std::to_string(new_count) +
                          " entries, the old one " + std::to_string(old_count));
}

}  // namespace

TableRewriteFn LevelDbFilterRewrite(std::optional<leveldb::BloomPolicy> policy) {
  return [policy](const TableToRepair& t, ByteSpan file) -> Result<std::optional<TableRewrite>> {
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader reader, OpenLevelDbTable(file, t.path, true));
    // Every data block's and the index's checksum, every entry's order.
    BLOOMCODEC_RETURN_IF_ERROR(CountEntries(reader).status());
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector rewritten, leveldb::RewriteTableFilter(reader, policy));
    return AsRewrite(file, rewritten);
  };
}

TableCheckFn LevelDbTableCheck() {
  return [](const TableToRepair& t, ByteSpan old_file, ByteSpan new_file) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader old, OpenLevelDbTable(old_file, t.path, true));
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader fresh,
                                OpenLevelDbTable(new_file, t.path + " (rewritten)", false));
    // Verify: every block, the filter's layout, "may contain" for every key.
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t entries, fresh.Verify());
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t old_entries, CountEntries(old));
    return SameEntryCount(t.path, old_entries, entries);
  };
}

TableRewriteFn RocksDbFilterRewrite(std::optional<double> bits_per_key,
                                    std::optional<rocksdb::FilterEncoding> encoding) {
  return [bits_per_key, encoding](const TableToRepair& t,
                                  ByteSpan file) -> Result<std::optional<TableRewrite>> {
    rocksdb::SstOpenOptions open;
    open.verify_checksums = true;
    open.verify_filter_checksum = false;  // the filter is what a repair replaces
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                                rocksdb::SstReader::Open(file, t.path, open));
    BLOOMCODEC_RETURN_IF_ERROR(CountEntries(sst).status());
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector rewritten,
                                rocksdb::RewriteSstFilter(sst, bits_per_key, encoding));
    return AsRewrite(file, rewritten);
  };
}

TableCheckFn RocksDbTableCheck() {
  return [](const TableToRepair& t, ByteSpan old_file, ByteSpan new_file) -> Status {
    rocksdb::SstOpenOptions open;
    open.verify_checksums = true;
    rocksdb::SstOpenOptions old_open = open;
    old_open.verify_filter_checksum = false;  // the filter the repair replaces
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader old,
                                rocksdb::SstReader::Open(old_file, t.path, old_open));
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader fresh,
                                rocksdb::SstReader::Open(new_file, t.path + " (rewritten)", open));
    std::uint64_t entries = 0;
    BLOOMCODEC_RETURN_IF_ERROR(fresh.ForEachEntry([&](ByteSpan key, ByteSpan, const auto&) {
      ++entries;
      BLOOMCODEC_ASSIGN_OR_RETURN(bool may, fresh.MayContain(rocksdb::UserKeyOf(key)));
      if (!may) {
        return Status::Internal(t.path +
                                ": the rewritten filter answers \"not there\" for a key "
                                "the table holds");
      }
      return Status();
    }));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t old_entries, CountEntries(old));
    return SameEntryCount(t.path, old_entries, entries);
  };
}

}  // namespace bloomcodec::lsmrepair
