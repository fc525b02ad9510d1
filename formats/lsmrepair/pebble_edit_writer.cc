// Pebble's part of a repair that is not the transaction (pebble_transaction.h): the table rewrite
// and its read-back, and the version edit that records the rewritten files.
#include <algorithm>
#include <string>
#include <vector>

#include "blocktable/index_block.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"
#include "lsmrepair/pebble_transaction.h"
#include "manifest/edit_tags.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::lsmrepair {
namespace {

using blocktable::BlockHandle;

// The rewrite as the transaction takes it; nullopt when it equals `file`. The new filter block is
// the tail's first (both rewriters write it first).
std::optional<TableRewrite> PebbleAsRewrite(ByteSpan file, pebble::PebbleTail tail,
                                            const pebble::NewFilter& filter) {
  const ByteSpan old_tail = file.subspan(std::min<std::uint64_t>(tail.kept, file.size()));
  if (tail.kept <= file.size() &&
      std::equal(old_tail.begin(), old_tail.end(), tail.tail.begin(), tail.tail.end())) {
    return std::nullopt;
  }
  TableRewrite r;
  r.kept_prefix = tail.kept;
  r.tail = std::move(tail.tail);
  r.entries = filter.filter_keys;
  r.filter_offset = tail.kept;
  r.filter_size = filter.block ? filter.block->size() : 0;
  return r;
}

// The new filter: the tap's, else built from the table's keys (read once, with each data block's
// checksum; a damaged table stops here) and asked for each of them.
Result<pebble::NewFilter> NewFilterOf(const pebble::PebbleTable& table, const std::string& path,
                                      std::uint32_t bits_per_key, const pebble::RebuildTap* tap) {
  pebble::NewFilter filter;
  const pebble::RebuiltFilter* built =
      tap ? tap->Find(path, table.file().size(), bits_per_key) : nullptr;
  if (built != nullptr) {
    // Verify's scan read the data blocks with their checksums and asked the filter for every key.
    if (built->writes_filter) filter.block = built->filter;
    filter.filter_keys = built->filter_keys;
    BLOOMCODEC_ASSIGN_OR_RETURN(filter.data_end, pebble::DataBlocksEnd(table));
    return filter;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyList keys, pebble::PebbleFilterKeys(table, &filter.data_end));
  std::vector<std::uint64_t> hashes;
  const pebble::BloomPolicy policy = pebble::PolicyForRewrite(table, keys, bits_per_key, &hashes);
  BLOOMCODEC_ASSIGN_OR_RETURN(filter.block,
                              pebble::BuildCheckedBloom(policy, hashes, path + " (rewritten)"));
  filter.filter_keys = keys.size();
  return filter;
}

// Every table Pebble writes: its own row (Pebblev1..v4) and columnar (Pebblev5+) tables, and the
// RocksDBv2 and LevelDB tables it writes below format major version 5. `old_table`: a table to be
// rewritten, whose filter block may be damaged (the rewrite replaces it); a rewritten one must
// read whole.
Result<pebble::PebbleTable> OpenTableToRewrite(ByteSpan file, const std::string& source,
                                               bool old_table) {
  pebble::PebbleOpenOptions options;
  options.footers = pebble::PebbleFooters::kPebbleAndRocksDb;
  options.tolerate_damaged_filter = old_table;
  return pebble::PebbleTable::Open(file, source, options);
}

// The record itself marks the table (custom tag 2 holding 1, as Pebble v1 and v2 write it).
bool MarkedByRecord(const manifest::NewFileRecord& r) {
  return std::any_of(r.custom.begin(), r.custom.end(), [&r](const manifest::CustomFieldSpan& f) {
    return f.tag == manifest::pebble_tags::kCustomNeedsCompaction && f.value_size == 1 &&
           r.Value(f)[0] == 1;
  });
}

// A table's new-file field under `number` and `size`, every other byte as recorded; a virtual
// table's backing number (custom tag 66) replaced by `backing`.
Result<ByteVector> RecordAgain(const manifest::TableMeta& t, std::uint64_t number,
                               std::uint64_t size, std::optional<std::uint64_t> backing) {
  const manifest::NewFileRecord& rec = t.record;
  if (rec.tag == 0 || rec.keys_at > rec.custom_at || rec.custom_at > rec.bytes.size()) {
    return Status::Internal("table " + std::to_string(t.number) +
                            ": its MANIFEST record was not kept whole");
  }
  ByteVector out;
  ByteWriter w(out);
  w.PutVarint64(rec.tag);
  w.PutVarint64(static_cast<std::uint64_t>(t.level));
  w.PutVarint64(number);
  if (rec.tag == manifest::kNewFile3) {
    // The path id as recorded: the third uvarint of the record (level, number, path id).
    ByteReader in(rec.bytes, "", 0);
    Result<std::uint64_t> id = in.ReadVarint64("");
    if (id.ok()) id = in.ReadVarint64("");
    if (id.ok()) id = in.ReadVarint64("");
    if (!id.ok()) return Status::Internal("table " + std::to_string(t.number) + ": no path id");
    w.PutVarint64(*id);
  }
  w.PutVarint64(size);
  if (!backing) {
    w.PutBytes(ByteSpan(rec.bytes.data() + rec.keys_at, rec.bytes.size() - rec.keys_at));
    return out;
  }
  const auto field =
      std::find_if(rec.custom.begin(), rec.custom.end(), [](const manifest::CustomFieldSpan& f) {
        return f.tag == manifest::pebble_tags::kCustomVirtual;
      });
  if (field == rec.custom.end()) {
    return Status::Internal("virtual table " + std::to_string(t.number) +
                            ": no backing field in its record");
  }
  w.PutBytes(ByteSpan(rec.bytes.data() + rec.keys_at, field->value_at - rec.keys_at));
  w.PutVarint64(*backing);
  const std::size_t after = field->value_at + field->value_size;
  w.PutBytes(ByteSpan(rec.bytes.data() + after, rec.bytes.size() - after));
  return out;
}

// The data blocks a table's index names, in order, none of them read: a rewritten table that
// names the old one's (whose bytes it keeps) holds its keys, which its filter was asked for.
Result<std::vector<BlockHandle>> DataBlockHandles(const pebble::PebbleTable& t) {
  std::vector<BlockHandle> out;
  BLOOMCODEC_RETURN_IF_ERROR(t.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    out.push_back(h);
    return Status();
  }));
  return out;
}

}  // namespace

TableRewriteFn PebbleFilterRewrite(std::uint32_t bits_per_key, const pebble::RebuildTap* tap) {
  return [bits_per_key, tap](const TableToRepair& t,
                             ByteSpan file) -> Result<std::optional<TableRewrite>> {
    BLOOMCODEC_ASSIGN_OR_RETURN(pebble::PebbleTable table, OpenTableToRewrite(file, t.path, true));
    BLOOMCODEC_ASSIGN_OR_RETURN(pebble::NewFilter filter,
                                NewFilterOf(table, t.path, bits_per_key, tap));
    BLOOMCODEC_ASSIGN_OR_RETURN(pebble::PebbleTail tail, pebble::RewriteTail(table, filter));
    return PebbleAsRewrite(file, std::move(tail), filter);
  };
}

TableCheckFn PebbleTableCheck() {
  return [](const TableToRepair& t, ByteSpan old_file, ByteSpan new_file) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(pebble::PebbleTable old,
                                OpenTableToRewrite(old_file, t.path, true));
    // Footer, metaindex, properties, index and filter with their checksums.
    const std::string source = t.path + " (rewritten)";
    BLOOMCODEC_ASSIGN_OR_RETURN(pebble::PebbleTable fresh,
                                OpenTableToRewrite(new_file, source, false));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<BlockHandle> blocks, DataBlockHandles(fresh));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<BlockHandle> old_blocks, DataBlockHandles(old));
    if (blocks.size() != old_blocks.size()) {
      return Status::Internal(source + ": its index names " + std::to_string(blocks.size()) +
                              " data blocks, the old table's " + std::to_string(old_blocks.size()));
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].offset != old_blocks[i].offset || blocks[i].size != old_blocks[i].size) {
        return Status::Internal(source + ": data block " + std::to_string(i) + " of its index is " +
                                std::to_string(blocks[i].size) + " bytes at " +
                                std::to_string(blocks[i].offset) + ", the old table's " +
                                std::to_string(old_blocks[i].size) + " bytes at " +
                                std::to_string(old_blocks[i].offset));
      }
    }
    return Status();
  };
}

Result<ByteVector> PebbleRepairEdit(std::span<const PebbleFileReplacement> replaced,
                                    std::uint64_t next_file) {
  ByteVector edit;
  ByteWriter w(edit);
  for (const PebbleFileReplacement& f : replaced) {
    if (f.tables.size() != f.table_numbers.size() || (!f.is_backing && f.tables.size() != 1)) {
      return Status::Internal("a Pebble file replacement whose tables do not match");
    }
    for (const manifest::TableMeta& t : f.tables) {
      w.PutVarint64(manifest::kDeletedFile);
      w.PutVarint64(static_cast<std::uint64_t>(t.level));
      w.PutVarint64(t.number);
    }
    if (f.is_backing) {
      w.PutVarint64(manifest::pebble_tags::kRemovedBacking);
      w.PutVarint64(f.old_number);
      w.PutVarint64(manifest::pebble_tags::kCreatedBacking);
      w.PutVarint64(f.new_number);
      w.PutVarint64(f.new_size);
    }
    for (std::size_t i = 0; i < f.tables.size(); ++i) {
      const manifest::TableMeta& t = f.tables[i];
      // A virtual table's size is its share of the backing, an estimate Pebble keeps.
      const std::uint64_t size = f.is_backing ? t.size : f.new_size;
      std::optional<std::uint64_t> backing;
      if (f.is_backing) backing = f.new_number;
      BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector field,
                                  RecordAgain(t, f.table_numbers[i], size, backing));
      w.PutBytes(field);
    }
    for (std::size_t i = 0; i < f.tables.size(); ++i) {
      const manifest::TableMeta& t = f.tables[i];
      // Marked by tag 11 (the record's custom tag 2 is carried with the record).
      if (t.marked_for_compaction && !MarkedByRecord(t.record)) {
        w.PutVarint64(manifest::pebble_tags::kMarkedForCompaction);
        w.PutVarint64(static_cast<std::uint64_t>(t.level));
        w.PutVarint64(f.table_numbers[i]);
      }
    }
  }
  w.PutVarint64(manifest::kNextFileNumber);
  w.PutVarint64(next_file);
  return edit;
}

}  // namespace bloomcodec::lsmrepair
