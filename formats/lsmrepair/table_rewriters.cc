// The LevelDB and RocksDB table rewrites and checks of a repair (see table_rewriters.h).
#include "lsmrepair/table_rewriters.h"

#include <algorithm>

#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::lsmrepair {
namespace {

// The rewrite as a kept prefix of `file` and a new tail (from `kept` on, its first
// `filter_size` bytes the new filter block); nullopt when it equals `file`. The prefix grows
// over the tail's first bytes that equal the old file's.
std::optional<TableRewrite> AsRewrite(ByteSpan file, std::uint64_t kept, ByteVector tail,
                                      std::uint64_t entries, std::uint64_t filter_size) {
  if (kept > file.size()) {
    return TableRewrite{kept, std::move(tail), entries, kept, filter_size};  // refused later
  }
  const ByteSpan old_tail = file.subspan(kept);
  if (std::equal(old_tail.begin(), old_tail.end(), tail.begin(), tail.end())) {
    return std::nullopt;
  }
  const std::size_t limit = std::min(old_tail.size(), tail.size());
  const auto diff = std::mismatch(old_tail.begin(), old_tail.begin() + limit, tail.begin());
  const auto same = static_cast<std::size_t>(diff.first - old_tail.begin());
  TableRewrite r;
  r.kept_prefix = kept + same;
  tail.erase(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(same));
  r.tail = std::move(tail);
  r.entries = entries;
  r.filter_offset = kept;
  r.filter_size = filter_size;
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

// The data blocks the index lists (the index only: no data block is read).
template <typename Reader>
Result<std::uint64_t> CountDataBlocks(const Reader& reader) {
  std::uint64_t n = 0;
  BLOOMCODEC_RETURN_IF_ERROR(reader.ForEachDataBlock([&](ByteSpan, const auto&) {
    ++n;
    return Status();
  }));
  return n;
}

Status SameDataBlocks(const std::string& source, std::uint64_t old_count, std::uint64_t new_count) {
  if (old_count == new_count) return Status();
  return Status::Internal(source + ": the rewritten table's index lists " +
                          std::to_string(new_count) + " data blocks, the old one's " +
                          std::to_string(old_count));
}

}  // namespace

TableRewriteFn LevelDbFilterRewrite(std::optional<leveldb::BloomPolicy> policy,
                                    const leveldb::RebuildTap* tap) {
  return [policy, tap](const TableToRepair& t,
                       ByteSpan file) -> Result<std::optional<TableRewrite>> {
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader reader, OpenLevelDbTable(file, t.path, true));
    // One pass: every data block's checksum, every entry, the new filter asked for every key
    // (or the index only, for a filter block the tap built).
    const leveldb::RebuiltFilterBlock* prebuilt = tap ? tap->Find(t.path, file.size()) : nullptr;
    BLOOMCODEC_ASSIGN_OR_RETURN(
        leveldb::TableFilterTail rewritten,
        leveldb::RewriteTableFilterTail(reader, policy, t.mapped, prebuilt));
    return AsRewrite(file, rewritten.kept_prefix, std::move(rewritten.tail), rewritten.entries,
                     rewritten.filter_block_size);
  };
}

TableCheckFn LevelDbTableCheck() {
  return [](const TableToRepair& t, ByteSpan old_file, ByteSpan new_file) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader old, OpenLevelDbTable(old_file, t.path, true));
    // Footer, index, metaindex and filter block with their checksums.
    BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader fresh,
                                OpenLevelDbTable(new_file, t.path + " (rewritten)", false));
    if (fresh.filter()) {
      BLOOMCODEC_RETURN_IF_ERROR(leveldb::ParseFilterBlockLayout(fresh.filter()->contents.bytes(),
                                                                 fresh.source(),
                                                                 fresh.filter()->handle.offset)
                                     .status());
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t blocks, CountDataBlocks(fresh));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t old_blocks, CountDataBlocks(old));
    return SameDataBlocks(t.path, old_blocks, blocks);
  };
}

TableRewriteFn RocksDbFilterRewrite(std::optional<double> bits_per_key,
                                    std::optional<rocksdb::FilterEncoding> encoding,
                                    const rocksdb::RebuildTap* tap) {
  return [bits_per_key, encoding, tap](const TableToRepair& t,
                                       ByteSpan file) -> Result<std::optional<TableRewrite>> {
    rocksdb::SstOpenOptions open;
    open.verify_checksums = true;
    open.verify_filter_checksum = false;  // the filter is what a repair replaces
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                                rocksdb::SstReader::Open(file, t.path, open));
    const rocksdb::RebuiltFilter* prebuilt =
        tap && bits_per_key ? tap->Find(t.path, file.size(), *bits_per_key, encoding) : nullptr;
    BLOOMCODEC_ASSIGN_OR_RETURN(
        rocksdb::SstFilterTail rewritten,
        rocksdb::RewriteSstFilterTail(sst, bits_per_key, encoding, t.mapped, prebuilt));
    std::optional<TableRewrite> r =
        AsRewrite(file, rewritten.kept_prefix, std::move(rewritten.tail), rewritten.entries,
                  rewritten.filter_block_size);
    if (r) {
      r->filter_in_pieces = rewritten.partitioned;
      r->filter_index_size = rewritten.filter_index_size;
    }
    return r;
  };
}

Status RocksDbRewritable(ByteSpan file, const std::string& path) {
  rocksdb::SstOpenOptions open;
  open.verify_filter_checksum = false;  // the filter is what a repair replaces
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst, rocksdb::SstReader::Open(file, path, open));
  return rocksdb::CheckFilterRewritable(sst);
}

TableCheckFn RocksDbTableCheck() {
  return [](const TableToRepair& t, ByteSpan old_file, ByteSpan new_file) -> Status {
    rocksdb::SstOpenOptions open;
    open.verify_checksums = true;
    rocksdb::SstOpenOptions old_open = open;
    old_open.verify_filter_checksum = false;  // the filter the repair replaces
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader old,
                                rocksdb::SstReader::Open(old_file, t.path, old_open));
    // Footer, metaindex, index, properties and filter with their checksums.
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader fresh,
                                rocksdb::SstReader::Open(new_file, t.path + " (rewritten)", open));
    if (fresh.filter() && fresh.filter()->placement == rocksdb::FilterPlacement::kFull) {
      BLOOMCODEC_RETURN_IF_ERROR(
          rocksdb::FullFilterReader::Parse(fresh.filter()->contents.bytes(), fresh.source())
              .status());
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t blocks, CountDataBlocks(fresh));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t old_blocks, CountDataBlocks(old));
    return SameDataBlocks(t.path, old_blocks, blocks);
  };
}

}  // namespace bloomcodec::lsmrepair
