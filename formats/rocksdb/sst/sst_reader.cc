#include "rocksdb/sst/sst_reader.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "blocktable/index_block.h"
#include "codec/byte_reader.h"
#include "rocksdb/speedb_paired_bloom.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockContents;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::CheckHandleInFile;
using blocktable::CompareKeys;
using blocktable::DecodeFooter;
using blocktable::kBlockTrailerSize;
using blocktable::KeyOrder;
using blocktable::ReadBlockHandle;
using blocktable::ReadBlockOptions;
using blocktable::TableFamily;
using blocktable::TrailerFormatOf;
using blocktable::ValueEncoding;

namespace {

// Properties RocksDB 7.8 writes as varint64 (table/meta_blocks.cc AddTableProperty and the
// names of table_properties.cc).
constexpr std::array<std::string_view, 27> kVarintProperties = {
    "rocksdb.data.size",
    "rocksdb.index.size",
    "rocksdb.index.partitions",
    "rocksdb.top-level.index.size",
    "rocksdb.index.key.is.user.key",
    "rocksdb.index.value.is.delta.encoded",
    "rocksdb.filter.size",
    "rocksdb.raw.key.size",
    "rocksdb.raw.value.size",
    "rocksdb.num.data.blocks",
    "rocksdb.num.entries",
    "rocksdb.num.filter_entries",
    "rocksdb.deleted.keys",
    "rocksdb.merge.operands",
    "rocksdb.num.range-deletions",
    "rocksdb.format.version",
    "rocksdb.fixed.key.length",
    "rocksdb.column.family.id",
    "rocksdb.creation.time",
    "rocksdb.oldest.key.time",
    "rocksdb.file.creation.time",
    "rocksdb.slow.compression.estimated.data.size",
    "rocksdb.fast.compression.estimated.data.size",
    "rocksdb.original.file.number",
    "rocksdb.tail.start.offset",
    "rocksdb.key.largest.seqno",
    "rocksdb.key.smallest.seqno",
};
// Little-endian fixed-width ones: the block-based table's index type (fixed32), SstFileWriter's
// version (fixed32) and global sequence number (fixed64).
constexpr std::array<std::pair<std::string_view, int>, 3> kFixedProperties = {{
    {"rocksdb.block.based.table.index.type", 4},
    {"rocksdb.external_sst_file.version", 4},
    {"rocksdb.external_sst_file.global_seqno", 8},
}};

std::optional<std::uint64_t> DecodeVarint64Exactly(ByteSpan raw) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  for (int shift = 0; i < raw.size() && shift <= 63; shift += 7) {
    const std::uint8_t b = raw[i++];
    if (shift == 63 && b > 1) return std::nullopt;
    v |= std::uint64_t{static_cast<std::uint8_t>(b & 0x7f)} << shift;
    if ((b & 0x80) == 0) return i == raw.size() ? std::optional<std::uint64_t>(v) : std::nullopt;
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 10> kBuiltinFilterNames = {
    kBuiltinFilterName,
    // RocksDB 7.0.0 to 7.0.2 (the policies' Name()).
    "bloomfilter",
    "ribbonfilter",
    "rocksdb.internal.LegacyBloomFilter",
    "rocksdb.internal.FastLocalBloomFilter",
    "rocksdb.internal.Standard128RibbonFilter",
    "rocksdb.internal.DeprecatedBlockBasedBloomFilter",
    // TiKV (tikv/rust-rocksdb, April 2023 to July 2024).
    "rocksdb.BuiltinBloomFilter.FullBloom",
    "rocksdb.BuiltinBloomFilter.Ribbon",
    "rocksdb.BuiltinBloomFilter.BlockBloom",
};

// Where a metaindex key puts a filter we read (a built-in one, or Speedb's paired Bloom as a full
// or partitioned filter); nullopt for every other key.
std::optional<FilterPlacement> BuiltinFilterPlacement(std::string_view key) {
  constexpr std::array<std::pair<std::string_view, FilterPlacement>, 3> kPrefixes = {{
      {"fullfilter.", FilterPlacement::kFull},
      {"partitionedfilter.", FilterPlacement::kPartitioned},
      {"filter.", FilterPlacement::kBlockBased},
  }};
  for (const auto& [prefix, placement] : kPrefixes) {
    if (!key.starts_with(prefix)) continue;
    const std::string_view name = key.substr(prefix.size());
    if (IsBuiltinFilterName(name) ||
        (placement != FilterPlacement::kBlockBased && name == speedb::kPolicyName)) {
      return placement;
    }
  }
  return std::nullopt;
}

}  // namespace

bool IsBuiltinFilterName(std::string_view policy_name) {
  return std::find(kBuiltinFilterNames.begin(), kBuiltinFilterNames.end(), policy_name) !=
         kBuiltinFilterNames.end();
}

std::string PrintableName(std::string_view name) {
  if (std::all_of(name.begin(), name.end(), [](char c) { return c >= 0x20 && c < 0x7f; })) {
    return std::string(name);
  }
  return "hex:" + ToHex(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
}

std::string_view IndexTypeName(IndexType type) {
  switch (type) {
    case IndexType::kBinarySearch: return "binary_search";
    case IndexType::kHashSearch: return "hash_search";
    case IndexType::kTwoLevelIndexSearch: return "two_level_index_search";
    case IndexType::kBinarySearchWithFirstKey: return "binary_search_with_first_key";
  }
  return "unknown";
}

const TableProperty* TableProperties::Find(std::string_view name) const {
  for (const TableProperty& p : entries) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<std::uint64_t> TableProperties::Number(std::string_view name) const {
  const TableProperty* p = Find(name);
  return p == nullptr ? std::nullopt : p->number;
}

std::optional<std::string> TableProperties::String(std::string_view name) const {
  const TableProperty* p = Find(name);
  if (p == nullptr) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(p->raw.data()), p->raw.size());
}

Result<TableProperties> ParseProperties(const Block& block) {
  TableProperties props;
  BlockIterator it(block, KeyOrder::kBytewise);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    TableProperty p;
    p.name.assign(reinterpret_cast<const char*>(it.key().data()), it.key().size());
    p.raw = it.value();
    if (std::find(kVarintProperties.begin(), kVarintProperties.end(), p.name) !=
        kVarintProperties.end()) {
      p.number = DecodeVarint64Exactly(p.raw);
      p.malformed = !p.number.has_value();
    }
    for (const auto& [name, width] : kFixedProperties) {
      if (p.name != name) continue;
      if (p.raw.size() != static_cast<std::size_t>(width)) {
        p.malformed = true;
        break;
      }
      std::uint64_t v = 0;
      for (int i = width - 1; i >= 0; --i) v = (v << 8) | p.raw[static_cast<std::size_t>(i)];
      p.number = v;
    }
    props.entries.push_back(std::move(p));
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return props;
}

ReadBlockOptions SstReader::BlockOptions() const {
  ReadBlockOptions o;
  o.trailer = TrailerFormatOf(footer_, TableFamily::kRocksDb);
  o.verify_checksum = options_.verify_checksums;
  o.max_uncompressed_size = options_.max_uncompressed_block_size;
  return o;
}

UserKeyOrder UserKeyOrderOf(std::string_view name) {
  // MyRocks (MariaDB storage/rocksdb/rdb_comparator.h): Rdb_pk_comparator compares bytewise,
  // Rdb_rev_comparator negates that; both shorten separators as RocksDB's bytewise and reverse
  // bytewise comparators do.
  if (name.empty() || name == "leveldb.BytewiseComparator" || name == "RocksDB_SE_v3.10") {
    return UserKeyOrder::kBytewise;
  }
  if (name == "rocksdb.ReverseBytewiseComparator" || name == "rev:RocksDB_SE_v3.10") {
    return UserKeyOrder::kReverseBytewise;
  }
  return UserKeyOrder::kUnknown;
}

KeyOrder SstReader::data_key_order() const {
  switch (user_key_order_) {
    case UserKeyOrder::kBytewise: return KeyOrder::kInternal;
    case UserKeyOrder::kReverseBytewise: return KeyOrder::kReverseInternal;
    case UserKeyOrder::kUnknown: break;
  }
  return KeyOrder::kUnknownInternal;
}

KeyOrder SstReader::index_key_order() const {
  if (!index_key_is_user_key_) return data_key_order();
  switch (user_key_order_) {
    case UserKeyOrder::kBytewise: return KeyOrder::kBytewise;
    case UserKeyOrder::kReverseBytewise: return KeyOrder::kReverseBytewise;
    case UserKeyOrder::kUnknown: break;
  }
  return KeyOrder::kUnknown;
}

ValueEncoding SstReader::index_value_encoding() const {
  if (!index_value_delta_) return ValueEncoding::kLengthPrefixed;
  return index_type_ == IndexType::kBinarySearchWithFirstKey
             ? ValueEncoding::kIndexHandleDeltaWithFirstKey
             : ValueEncoding::kIndexHandleDelta;
}

Result<Block> SstReader::ReadBlock(const BlockHandle& handle, std::string_view what) const {
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents contents,
                              blocktable::ReadBlock(file_, handle, source_, BlockOptions(), what));
  return Block::Parse(std::move(contents), source_, what, BlockFooterLayout::kRocksDb);
}

Result<SstReader> SstReader::Open(ByteSpan file, std::string source,
                                  const SstOpenOptions& options) {
  SstReader r;
  r.source_ = std::move(source);
  r.file_ = file;
  r.options_ = options;
  BLOOMCODEC_ASSIGN_OR_RETURN(r.footer_, DecodeFooter(file, r.source_, TableFamily::kRocksDb));
  BLOOMCODEC_ASSIGN_OR_RETURN(r.metaindex_,
                              r.ReadBlock(r.footer_.metaindex_handle, "metaindex block"));
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadMetaindex());
  BLOOMCODEC_RETURN_IF_ERROR(r.FindIndexHandle());
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadPropertiesBlock());
  BLOOMCODEC_RETURN_IF_ERROR(r.ReadDictionary());
  BLOOMCODEC_ASSIGN_OR_RETURN(r.index_, r.ReadBlock(r.index_handle_, "index block"));
  BLOOMCODEC_RETURN_IF_ERROR(r.FindFilter());
  return r;
}

Status SstReader::ReadMetaindex() {
  BlockIterator it(metaindex_, KeyOrder::kBytewise);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    SstMetaindexEntry e;
    e.key.assign(reinterpret_cast<const char*>(it.key().data()), it.key().size());
    // The value views the block's contents, which this reader keeps alive.
    e.value = it.value();
    e.value_at = metaindex_.contents().file_offset();
    if (metaindex_.contents().compression() == BlockCompression::kNone) {
      e.value_at +=
          static_cast<std::uint64_t>(e.value.data() - metaindex_.contents().bytes().data());
    }
    ByteReader hr(e.value, source_, e.value_at);
    Result<BlockHandle> h = ReadBlockHandle(hr, "meta block handle");
    if (h.ok() && hr.at_end()) e.handle = *h;
    metaindex_entries_.push_back(std::move(e));
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return Status();
}

Result<Block> SstReader::ReadDataBlock(const BlockHandle& handle) const {
  ReadBlockOptions o = BlockOptions();
  o.dictionary = dictionary_.bytes();
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents contents,
                              blocktable::ReadBlock(file_, handle, source_, o, "data block"));
  return Block::Parse(std::move(contents), source_, "data block", BlockFooterLayout::kRocksDb);
}

Status SstReader::ReadDictionary() {
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    if (e.key != kCompressionDictBlockName) continue;
    if (!e.handle) {
      return Status::Corrupt(source_, e.value_at,
                             "a block handle as the value of " +
                                 std::string(kCompressionDictBlockName));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        CheckHandleInFile(*e.handle, file_.size(), source_, e.value_at, "compression dictionary"));
    BLOOMCODEC_ASSIGN_OR_RETURN(
        dictionary_,
        blocktable::ReadBlock(file_, *e.handle, source_, BlockOptions(), "compression dictionary"));
    break;
  }
  return Status();
}

Status SstReader::FindIndexHandle() {
  if (!footer_.context_checksums()) {
    index_handle_ = footer_.index_handle;
    return Status();
  }
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    if (e.key != blocktable::kIndexMetaBlockName) continue;
    if (!e.handle) {
      return Status::Corrupt(source_, e.value_at,
                             "a block handle as the value of " +
                                 std::string(blocktable::kIndexMetaBlockName));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        CheckHandleInFile(*e.handle, file_.size(), source_, e.value_at, "index block"));
    index_handle_ = *e.handle;
    return Status();
  }
  return Status::Corrupt(source_, metaindex_.contents().file_offset(),
                         "the metaindex entry " + std::string(blocktable::kIndexMetaBlockName) +
                             " (format_version " + std::to_string(footer_.format_version) +
                             " keeps the index block's handle there)",
                         "no such entry");
}

Status SstReader::ReadPropertiesBlock() {
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    // "rocksdb.stats" is the name before RocksDB 3.x; 7.8 still accepts it.
    if (e.key != kPropertiesBlockName && e.key != "rocksdb.stats") continue;
    if (!e.handle) {
      return Status::Corrupt(source_, metaindex_.contents().file_offset(),
                             "a block handle as the value of " + PrintableName(e.key));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        CheckHandleInFile(*e.handle, file_.size(), source_, e.value_at, "properties block"));
    BLOOMCODEC_ASSIGN_OR_RETURN(properties_block_, ReadBlock(*e.handle, "properties block"));
    BLOOMCODEC_ASSIGN_OR_RETURN(properties_, ParseProperties(properties_block_));
    properties_handle_ = *e.handle;
    break;
  }
  if (properties_) {
    if (auto t = properties_->Number("rocksdb.block.based.table.index.type")) {
      if (*t > 3) {
        return Status::Unsupported(source_ + ": index type " + std::to_string(*t) +
                                   " in the properties is not one RocksDB 7.8 writes (0..3)");
      }
      index_type_ = static_cast<IndexType>(*t);
    }
    index_key_is_user_key_ = properties_->Number("rocksdb.index.key.is.user.key").value_or(0) != 0;
    index_value_delta_ =
        properties_->Number("rocksdb.index.value.is.delta.encoded").value_or(0) != 0;
    if (auto w = properties_->String("rocksdb.block.based.table.whole.key.filtering")) {
      whole_key_filtering_ = *w != "0";
    }
    comparator_name_ = properties_->String("rocksdb.comparator").value_or("");
    user_key_order_ = UserKeyOrderOf(comparator_name_);
  }
  return Status();
}

Status SstReader::FindFilter() {
  // A full or partitioned filter first, as 6.x and 7.x prefer them; the block-based one
  // otherwise.
  const SstMetaindexEntry* chosen = nullptr;
  FilterPlacement placement = FilterPlacement::kBlockBased;
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    const std::optional<FilterPlacement> p = BuiltinFilterPlacement(e.key);
    if (!p) continue;
    if (*p != FilterPlacement::kBlockBased) {
      chosen = &e;
      placement = *p;
      break;
    }
    if (chosen == nullptr) chosen = &e;
  }
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    if (&e != chosen) continue;
    if (!e.handle) {
      return Status::Corrupt(source_, metaindex_.contents().file_offset(),
                             "a block handle as the value of " + PrintableName(e.key));
    }
    SstFilterInfo f;
    f.metaindex_key = e.key;
    f.placement = placement;
    // Speedb's policy name is its compatibility name, the metaindex key's suffix.
    if (std::string_view(e.key).substr(e.key.find('.') + 1) == speedb::kPolicyName) {
      f.family = FilterPolicyFamily::kSpeedbPaired;
    }
    f.handle = *e.handle;
    const std::string what =
        f.placement == FilterPlacement::kPartitioned ? "filter partition index" : "filter block";
    BLOOMCODEC_RETURN_IF_ERROR(
        CheckHandleInFile(f.handle, file_.size(), source_, e.value_at, what));
    ReadBlockOptions block = BlockOptions();
    block.verify_checksum = block.verify_checksum && options_.verify_filter_checksum;
    BLOOMCODEC_ASSIGN_OR_RETURN(f.contents,
                                blocktable::ReadBlock(file_, f.handle, source_, block, what));
    if (f.placement == FilterPlacement::kPartitioned) {
      Result<Block> b = Block::Parse(f.contents, source_, what, BlockFooterLayout::kRocksDb);
      // A repair, which rebuilds the partitions and their index from the data blocks, opens a
      // table whose top-level filter index alone is damaged (probes then report the damage).
      if (!b.ok() && options_.verify_filter_checksum) return b.status();
      if (b.ok()) filter_index_ = std::move(*b);
    }
    filter_ = std::move(f);
    break;
  }
  return Status();
}

Result<BlockHandle> SstReader::DecodeIndexValue(const Block& block, std::size_t entry_position,
                                                std::uint32_t shared, ByteSpan value,
                                                const BlockHandle* previous) const {
  const std::uint64_t base = block.contents().file_offset();
  ByteReader r(value, source_, base);
  if (index_value_delta_ && shared != 0) {
    if (previous == nullptr) {
      return block.ErrorAt(entry_position, "a whole block handle in the block's first entry");
    }
    Result<std::uint64_t> zigzag = r.ReadVarint64("size delta");
    if (!zigzag.ok()) return block.ErrorAt(entry_position, "a varint64 size delta");
    const auto delta = static_cast<std::int64_t>((*zigzag >> 1) ^ (~(*zigzag & 1) + 1));
    BlockHandle h;
    h.offset = previous->offset + previous->size + kBlockTrailerSize;
    h.size = previous->size + static_cast<std::uint64_t>(delta);
    BLOOMCODEC_RETURN_IF_ERROR(CheckIndexedBlockInFile(block, entry_position, h));
    return h;
  }
  Result<BlockHandle> h = ReadBlockHandle(r, "index entry's block handle");
  if (!h.ok()) return block.ErrorAt(entry_position, "a block handle as the index value");
  BLOOMCODEC_RETURN_IF_ERROR(CheckIndexedBlockInFile(block, entry_position, *h));
  return *h;
}

// Checked where the handle is read, so that the error names the index entry (an offset inside
// the file) rather than the offset the handle claims, which may lie past the end.
Status SstReader::CheckIndexedBlockInFile(const Block& block, std::size_t entry_position,
                                          const BlockHandle& h) const {
  if (CheckHandleInFile(h, file_.size(), source_, 0, "").ok()) return Status();
  return block.ErrorAt(entry_position,
                       "a block handle inside the file (" + std::to_string(file_.size()) +
                           " bytes, block + 5-byte trailer)",
                       "offset " + std::to_string(h.offset) + ", size " + std::to_string(h.size));
}

Result<BlockHandle> SstReader::DecodeIndexValue(const blocktable::IndexEntry& entry) const {
  return DecodeIndexValue(entry.block, entry.position, entry.shared, entry.value, entry.previous);
}

blocktable::IndexLayout SstReader::index_layout() const {
  // Walking compares no keys, and RocksDB's index iteration does not parse them either (it
  // iterates LevelDB tables whose shortened separators are shorter than a tag); only seeks and
  // verify need the index's key order.
  return {&index_, KeyOrder::kBytewise, index_value_encoding(),
          index_type_ == IndexType::kTwoLevelIndexSearch};
}

Status SstReader::ForEachIndexEntry(
    const Block& block, const std::function<Status(ByteSpan, const BlockHandle&)>& fn) const {
  return blocktable::ForEachIndexEntry(
      block, KeyOrder::kBytewise, index_value_encoding(),
      [this](const blocktable::IndexEntry& e) { return DecodeIndexValue(e); }, fn);
}

Status SstReader::ForEachIndexPartition(
    const std::function<Status(ByteSpan, const BlockHandle&)>& fn) const {
  if (index_type_ != IndexType::kTwoLevelIndexSearch) return Status();
  return ForEachIndexEntry(index_, fn);
}

Status SstReader::ForEachDataBlock(
    const std::function<Status(ByteSpan, const BlockHandle&)>& fn) const {
  return blocktable::ForEachIndexedBlock(
      index_layout(), [this](const blocktable::IndexEntry& e) { return DecodeIndexValue(e); },
      [this](const BlockHandle& partition) { return ReadBlock(partition, "index partition"); }, fn);
}

Status SstReader::ForEachEntry(
    const std::function<Status(ByteSpan, ByteSpan, const BlockHandle&)>& fn) const {
  return ForEachDataBlock([&](ByteSpan, const BlockHandle& handle) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(handle));
    BlockIterator it(block, KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      BLOOMCODEC_RETURN_IF_ERROR(fn(it.key(), it.value(), handle));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    return Status();
  });
}

Status SstReader::ForEachRangeDeletion(const std::function<Status(ByteSpan, ByteSpan)>& fn) const {
  for (const SstMetaindexEntry& e : metaindex_entries_) {
    if (e.key != kRangeDelBlockName) continue;
    if (!e.handle) {
      return Status::Corrupt(source_, e.value_at,
                             "a block handle as the value of " + std::string(kRangeDelBlockName));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        CheckHandleInFile(*e.handle, file_.size(), source_, e.value_at, "range deletion block"));
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadBlock(*e.handle, "range deletion block"));
    BlockIterator it(block, KeyOrder::kBytewise);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      if (it.key().size() < 8) {
        return block.ErrorAt(it.entry_position(),
                             "an internal key (user key + 8-byte tag) as a range deletion's start",
                             std::to_string(it.key().size()) + " bytes");
      }
      BLOOMCODEC_RETURN_IF_ERROR(fn(it.key(), it.value()));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    break;
  }
  return Status();
}

void SstReader::MakeLookupKey(ByteSpan user_key, ByteVector& out, bool user_key_index) const {
  out.assign(user_key.begin(), user_key.end());
  if (user_key_index) return;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(kLookupTag >> (8 * i)));
}

Result<std::optional<BlockHandle>> SstReader::SeekIndexBlock(const Block& block, ByteSpan lookup,
                                                             bool last_if_past) const {
  if (!blocktable::IsKnownOrder(index_key_order())) {
    return Status::Unsupported(source_ + ": the comparator " + PrintableName(comparator_name_) +
                               " is not one we know: a lookup in the index needs its order");
  }
  BlockIterator it(block, index_key_order(), index_value_encoding());
  BLOOMCODEC_RETURN_IF_ERROR(it.Seek(lookup));
  if (it.valid() && (!index_value_delta_ || it.shared() == 0)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, DecodeIndexValue(block, it.entry_position(),
                                                                it.shared(), it.value(), nullptr));
    return std::optional<BlockHandle>(h);
  }
  if (!it.valid() && !last_if_past) return std::optional<BlockHandle>();
  // A delta-encoded entry needs its predecessors' handles, or the last entry is wanted: walk.
  std::optional<BlockHandle> found;
  std::optional<BlockHandle> last;
  const KeyOrder order = index_key_order();
  BLOOMCODEC_RETURN_IF_ERROR(
      ForEachIndexEntry(block, [&](ByteSpan key, const BlockHandle& h) -> Status {
        last = h;
        if (!found && CompareKeys(order, key, lookup) >= 0) found = h;
        return Status();
      }));
  if (!found && last_if_past) found = last;
  return found;
}

Result<std::optional<BlockHandle>> SstReader::DataBlockFor(ByteSpan user_key) const {
  ByteVector lookup;
  MakeLookupKey(user_key, lookup, index_key_is_user_key_);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<BlockHandle> h, SeekIndexBlock(index_, lookup, false));
  if (!h || index_type_ != IndexType::kTwoLevelIndexSearch) return h;
  BLOOMCODEC_ASSIGN_OR_RETURN(Block partition, ReadBlock(*h, "index partition"));
  return SeekIndexBlock(partition, lookup, false);
}

Result<BlockHandle> SstReader::FilterBlockFor(ByteSpan user_key) const {
  if (!filter_) return Status::InvalidArgument(source_ + " has no filter");
  if (filter_->placement != FilterPlacement::kPartitioned) return filter_->handle;
  if (!filter_index_) {
    return Status::Corrupt(source_, filter_->handle.offset,
                           "a block of restarts and entries as the filter partition index");
  }
  ByteVector lookup;
  MakeLookupKey(user_key, lookup, index_key_is_user_key_);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<BlockHandle> h,
                              SeekIndexBlock(*filter_index_, lookup, true));
  if (!h) {
    return Status::Corrupt(source_, filter_->handle.offset,
                           "at least one filter partition in the partition index");
  }
  return *h;
}

}  // namespace bloomcodec::rocksdb
