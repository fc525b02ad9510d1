// Pebble's row-based tables: metaindex, properties, filter, index (FORMAT.md §3, §5, §7).
#include "pebble/table/table_reader.h"

#include <algorithm>

#include "codec/byte_reader.h"

namespace bloomcodec::pebble {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::KeyOrder;
using blocktable::ValueEncoding;

namespace {

std::optional<std::uint64_t> UvarintExactly(ByteSpan raw) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < raw.size() && i < 10; ++i) {
    v |= std::uint64_t{static_cast<std::uint8_t>(raw[i] & 0x7f)} << (7 * i);
    if ((raw[i] & 0x80) == 0) return i + 1 == raw.size() ? std::optional(v) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

blocktable::ReadBlockOptions PebbleTable::BlockOptions() const {
  blocktable::ReadBlockOptions o;
  o.trailer = blocktable::TrailerFormatOf(footer(), blocktable::TableFamily::kRocksDb);
  // Pebble's uvarint64 length before a Zstd frame is RocksDB's varint32 (format_version >= 2)
  // for every block below 4 GiB, and larger blocks are refused anyway.
  o.trailer.format_version = 2;
  o.trailer.base_context_checksum = 0;
  o.verify_checksum = true;
  return o;
}

Result<Block> PebbleTable::ReadBlock(const BlockHandle& h, std::string_view what) const {
  BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::BlockContents contents, ReadContents(h, what));
  return Block::Parse(std::move(contents), source_, what, BlockFooterLayout::kPebble);
}

Result<PebbleTable> PebbleTable::Open(ByteSpan file, std::string source,
                                      const PebbleOpenOptions& options) {
  PebbleTable t;
  t.source_ = std::move(source);
  t.file_ = file;
  BLOOMCODEC_ASSIGN_OR_RETURN(t.footer_, DecodePebbleFooter(file, t.source_, options.footers));
  BLOOMCODEC_RETURN_IF_ERROR(t.version() >= kFooterChecksumFormat ? t.ReadColumnarMetaindex()
                                                                  : t.ReadMetaindex());
  BLOOMCODEC_RETURN_IF_ERROR(t.ReadProperties());
  if (t.columnar()) {
    BLOOMCODEC_RETURN_IF_ERROR(t.CheckAttributes());
    const std::string schema = t.properties_.String("pebble.colblk.schema").value_or("");
    Result<colblk::KeySchema> found = colblk::FindKeySchema(schema);
    if (!found.ok()) {
      return Status::Unsupported(
          t.source_ + ": byte " + std::to_string(t.properties_handle_.offset) + ": " +
          PebbleFormatName(t.version()) + " table: " + found.status().message());
    }
    t.key_schema_ = std::move(found).value();
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(t.index_, t.ReadIndexBlock(t.footer().index_handle, "index block"));
  const Status filter = t.ReadFilter();
  // Only damage is passed over (what a rebuild mends); an unsupported layout still refuses.
  if (!filter.ok() && (!options.tolerate_damaged_filter || filter.code() != StatusCode::kCorrupt)) {
    return filter;
  }
  if (!filter.ok()) {
    const blocktable::BlockHandle handle = t.filter_.handle;
    t.filter_ = PebbleFilter();
    t.filter_.handle = handle;
    t.filter_.damage = filter.ToString();
  }
  return t;
}

Status PebbleTable::ReadMetaindex() {
  const BlockHandle& h = footer().metaindex_handle;
  BLOOMCODEC_ASSIGN_OR_RETURN(metaindex_, ReadBlock(h, "metaindex block"));
  if (metaindex_.contents().compression() != BlockCompression::kNone) {
    return Status::Corrupt(
        source_, h.offset + h.size, "an uncompressed metaindex block (Pebble never compresses it)",
        std::string(blocktable::CompressionName(metaindex_.contents().compression())));
  }
  BlockIterator it(metaindex_, KeyOrder::kBytewise);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    BLOOMCODEC_RETURN_IF_ERROR(AddMetaindexEntry(
        it.key(), it.value(),
        h.offset +
            static_cast<std::uint64_t>(it.value().data() - metaindex_.contents().bytes().data())));
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return Status();
}

Status PebbleTable::AddMetaindexEntry(ByteSpan key, ByteSpan value, std::uint64_t value_at) {
  rocksdb::SstMetaindexEntry e;
  e.key.assign(reinterpret_cast<const char*>(key.data()), key.size());
  e.value = value;
  e.value_at = value_at;
  ByteReader r(e.value, source_, e.value_at);
  Result<BlockHandle> handle = blocktable::ReadBlockHandle(r, "meta block handle");
  // pebble.value_index: the handle, then the widths of block number, offset and length.
  const std::size_t extra = e.key == kValueIndexBlockName ? 3 : 0;
  if (!handle.ok() || r.remaining() != extra) {
    return Status::Corrupt(source_, e.value_at,
                           "exactly one block handle" +
                               std::string(extra ? " and 3 width bytes" : "") +
                               " as the value of metaindex entry " + rocksdb::PrintableName(e.key),
                           std::to_string(e.value.size()) + " bytes");
  }
  BLOOMCODEC_RETURN_IF_ERROR(blocktable::CheckHandleInFile(
      *handle, file_.size(), source_, e.value_at, "meta block " + rocksdb::PrintableName(e.key)));
  e.handle = *handle;
  metaindex_entries_.push_back(std::move(e));
  return Status();
}

Status PebbleTable::ReadProperties() {
  const auto it = std::find_if(metaindex_entries_.begin(), metaindex_entries_.end(),
                               [](const auto& e) { return e.key == "rocksdb.properties"; });
  if (it == metaindex_entries_.end()) {
    return Status::Corrupt(source_, footer().metaindex_handle.offset,
                           "a rocksdb.properties entry in the metaindex (Pebble requires one)",
                           "none");
  }
  properties_handle_ = *it->handle;
  if (version() >= kAttributesFormat) {
    BLOOMCODEC_RETURN_IF_ERROR(ReadColumnarProperties());
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(properties_block_,
                                ReadBlock(properties_handle_, "properties block"));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(properties_, rocksdb::ParseProperties(properties_block_));
  two_level_ = properties_.Number("rocksdb.block.based.table.index.type").value_or(0) == 2;
  comparer_name_ = properties_.String("rocksdb.comparator").value_or("");
  if (comparer_name_.empty() || comparer_name_ == colblk::kBytewiseComparatorName) {
    comparer_ = colblk::KeyComparer::kBytewise;
  } else if (comparer_name_ == colblk::kCockroachComparatorName) {
    comparer_ = colblk::KeyComparer::kCockroach;
  } else {
    comparer_ = colblk::KeyComparer::kUnknown;
  }
  return Status();
}

std::optional<std::uint64_t> PebbleTable::Number(std::string_view name) const {
  const rocksdb::TableProperty* p = properties_.Find(name);
  if (p == nullptr) return std::nullopt;
  if (p->number) return p->number;
  return UvarintExactly(p->raw);
}

// Bloom first, then binary fuse, as Pebble's readers look them up.
Status PebbleTable::ReadFilter() {
  for (const auto& e : metaindex_entries_) {
    const bool bloom = e.key == kBloomFilterBlockName;
    if (!bloom && e.key != kBinaryFuseFilterBlockName) continue;
    if (!bloom && filter_.kind == PebbleFilterKind::kBloom) continue;
    BLOOMCODEC_RETURN_IF_ERROR(ReadFilterBlock(e));
  }
  return Status();
}

Status PebbleTable::ReadFilterBlock(const rocksdb::SstMetaindexEntry& e) {
  filter_ = PebbleFilter();
  filter_.handle = *e.handle;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      filter_contents_,
      blocktable::ReadBlock(file_, filter_.handle, source_, BlockOptions(), "filter block"));
  const ByteSpan bytes = filter_contents_.bytes();
  if (e.key == kBloomFilterBlockName) {
    BLOOMCODEC_ASSIGN_OR_RETURN(BloomReader f, BloomReader::Parse(bytes, source_));
    filter_.bloom.emplace(std::move(f));
    filter_.kind = PebbleFilterKind::kBloom;
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(BinaryFuseReader f, BinaryFuseReader::Parse(bytes, source_));
    filter_.fuse.emplace(std::move(f));
    filter_.kind = PebbleFilterKind::kBinaryFuse;
  }
  return Status();
}

blocktable::IndexLayout PebbleTable::index_layout() const {
  blocktable::IndexLayout l;
  l.index = &index_;
  // Columnar separators are user keys, re-laid as plain keys (their order is checked by
  // colblk::VerifyIndexBlock under the table's comparer).
  l.order = columnar() ? KeyOrder::kUnknown : KeyOrder::kInternal;
  l.values = ValueEncoding::kLengthPrefixed;
  l.two_level = two_level_;
  return l;
}

Result<BlockHandle> PebbleTable::DecodeIndexValue(const blocktable::IndexEntry& entry) const {
  const ByteSpan block = entry.block.contents().bytes();
  const std::uint64_t base = entry.block.contents().compression() == BlockCompression::kNone
                                 ? entry.block.contents().file_offset() +
                                       static_cast<std::uint64_t>(entry.value.data() - block.data())
                                 : entry.block.contents().file_offset();
  ByteReader r(entry.value, source_, base);
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, blocktable::ReadBlockHandle(r, "index block handle"));
  BLOOMCODEC_RETURN_IF_ERROR(
      blocktable::CheckHandleInFile(h, file_.size(), source_, base, "indexed block"));
  // Block properties: (shortID, uvarint length > 0, bytes) until the value ends.
  while (!r.at_end()) {
    BLOOMCODEC_RETURN_IF_ERROR(r.ReadU8("block property short ID").status());
    const std::uint64_t at = r.offset();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, r.ReadVarint64("block property length"));
    if (n == 0 || n > r.remaining()) {
      return Status::Corrupt(source_, at,
                             "a block property length from 1 to the " +
                                 std::to_string(r.remaining()) + " bytes left in the index value",
                             std::to_string(n));
    }
    BLOOMCODEC_RETURN_IF_ERROR(r.Skip(n, "block property"));
  }
  return h;
}

Status PebbleTable::ForEachIndexPartition(const blocktable::IndexEntryFn& fn) const {
  if (!two_level_) return Status();
  return blocktable::ForEachIndexEntry(
      index_, index_layout().order, ValueEncoding::kLengthPrefixed,
      [this](const blocktable::IndexEntry& e) { return DecodeIndexValue(e); }, fn);
}

Status PebbleTable::ForEachDataBlock(const blocktable::IndexEntryFn& fn) const {
  return blocktable::ForEachIndexedBlock(
      index_layout(), [this](const blocktable::IndexEntry& e) { return DecodeIndexValue(e); },
      [this](const BlockHandle& h) { return ReadIndexBlock(h, "index partition"); }, fn);
}

Status PebbleTable::ForEachRangeDeletion(
    const std::function<Status(ByteSpan start, ByteSpan end)>& fn) const {
  if (columnar()) return ForEachColumnarRangeDeletion(fn);
  for (const auto& e : metaindex_entries_) {
    if (e.key != kRangeDelBlockName) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, ReadBlock(*e.handle, "range deletion block"));
    BlockIterator it(b, KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      BLOOMCODEC_RETURN_IF_ERROR(fn(it.key(), it.value()));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
  }
  return Status();
}

void PebbleTable::MayContainBatch(const KeyList& user_keys, std::span<std::uint8_t> answers) const {
  if (filter_.kind == PebbleFilterKind::kNone || comparer_ == colblk::KeyComparer::kUnknown) {
    std::fill(answers.begin(), answers.end(), std::uint8_t{1});
    return;
  }
  const KeyList* asked = &user_keys;
  KeyList prefixes;
  if (comparer_ != colblk::KeyComparer::kBytewise) {
    for (std::size_t i = 0; i < user_keys.size(); ++i) {
      const ByteSpan k = user_keys[i];
      prefixes.Add(k.first(colblk::SplitUserKey(comparer_, k)));
    }
    asked = &prefixes;
  }
  if (filter_.bloom) {
    filter_.bloom->MayContainBatch(*asked, answers);
  } else {
    filter_.fuse->MayContainBatch(*asked, answers);
  }
}

void PebbleTable::MayContainBatch(const KeyList& user_keys, ByteSpan synthetic_prefix,
                                  std::span<std::uint8_t> answers) const {
  if (synthetic_prefix.empty() || filter_.kind == PebbleFilterKind::kNone ||
      comparer_ == colblk::KeyComparer::kUnknown) {
    MayContainBatch(user_keys, answers);
    return;
  }
  // The prefixes the stored keys would have: Split of the key as the virtual table shows it,
  // then the synthetic prefix cut off. The whole key (bytewise) passes through Split as is.
  KeyList cut;
  std::vector<std::size_t> asked;
  for (std::size_t i = 0; i < user_keys.size(); ++i) {
    const ByteSpan k = user_keys[i];
    const ByteSpan prefix = k.first(colblk::SplitUserKey(comparer_, k));
    answers[i] = 0;
    if (prefix.size() < synthetic_prefix.size() ||
        !std::equal(synthetic_prefix.begin(), synthetic_prefix.end(), prefix.begin())) {
      continue;
    }
    cut.Add(prefix.subspan(synthetic_prefix.size()));
    asked.push_back(i);
  }
  std::vector<std::uint8_t> cut_answers(cut.size());
  if (filter_.bloom) {
    filter_.bloom->MayContainBatch(cut, cut_answers);
  } else {
    filter_.fuse->MayContainBatch(cut, cut_answers);
  }
  for (std::size_t j = 0; j < asked.size(); ++j) answers[asked[j]] = cut_answers[j];
}

}  // namespace bloomcodec::pebble
