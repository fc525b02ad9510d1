// A columnar table's (Pebblev5+) filter rebuilt from its own keys (see table_writer.h,
// RewriteColumnarFilter). Pebble's columnar writer puts the filter after the index
// (FORMAT.md §6.1), so the data and index blocks keep their places and bytes; every block after
// the filter moves with its trailer, the value index is re-encoded for the moved value blocks,
// and the properties, metaindex and footer are written again in the table version's layout.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/trailer.h"
#include "codec/byte_writer.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/table/table_writer.h"
#include "pebble/table/value_index.h"

namespace bloomcodec::pebble {

using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::kBlockTrailerSize;

namespace {

std::optional<std::uint64_t> ParseDecimal(std::string_view s) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// pebble.compression_stats ("None:N,Snappy:C/U,..."; before its 2025 form "NoCompression:N/N")
// counts the uncompressed bytes of every block written before the properties, the filter and the
// value index among them: their growth added to the no-compression count. nullopt when the text
// is not of that form.
std::optional<std::string> AdjustedCompressionStats(std::string_view stats, std::int64_t growth) {
  const std::size_t comma = stats.find(',');
  const std::string_view first = stats.substr(0, comma);
  const std::string_view rest = comma == std::string_view::npos ? "" : stats.substr(comma);
  std::uint64_t n = 0;
  bool old_form = false;
  if (first.starts_with("None:")) {
    const auto v = ParseDecimal(first.substr(5));
    if (!v) return std::nullopt;
    n = *v;
  } else if (first.starts_with("NoCompression:")) {
    const std::string_view pair = first.substr(14);
    const std::size_t slash = pair.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const auto a = ParseDecimal(pair.substr(0, slash)), b = ParseDecimal(pair.substr(slash + 1));
    if (!a || !b || *a != *b) return std::nullopt;
    n = *a;
    old_form = true;
  } else {
    // No uncompressed block before: the count starts at 0 and leads the list when it is not 0.
    if (growth <= 0)
      return growth == 0 ? std::optional<std::string>(std::string(stats)) : std::nullopt;
    const std::string lead = "None:" + std::to_string(growth);
    return stats.empty() ? lead : lead + "," + std::string(stats);
  }
  if (growth < 0 && static_cast<std::uint64_t>(-growth) > n) return std::nullopt;
  n = static_cast<std::uint64_t>(static_cast<std::int64_t>(n) + growth);
  const std::string count = std::to_string(n);
  if (n == 0) return rest.empty() ? std::string() : std::string(rest.substr(1));
  return (old_form ? "NoCompression:" + count + "/" + count : "None:" + count) + std::string(rest);
}

class ColumnarRewriter {
 public:
  ColumnarRewriter(const PebbleTable& t, const std::optional<ByteVector>& filter,
                   std::uint64_t data_blocks_end)
      : t_(t), filter_(filter), data_blocks_end_(data_blocks_end) {}
  Result<PebbleTail> Run();

 private:
  Status CollectMoved();
  Result<std::uint64_t> KeptEnd() const;
  Status EmitMoved(const MovedBlock& m);
  Result<std::map<std::string, ByteVector>> NewProperties() const;
  Status WriteProperties();
  BlockCompression PropertiesCompression() const;
  void WriteMetaindexAndFooter();

  const PebbleTable& t_;
  const std::optional<ByteVector>& filter_;  // nullopt: no point key, no filter block (as Pebble)
  std::uint64_t data_blocks_end_;
  std::uint64_t base_ = 0;  // the bytes kept before out_ (the data and index blocks)
  ByteVector out_;
  std::vector<MovedBlock> moved_;
  std::vector<BlockHandle> new_values_;
  std::map<std::string, ByteVector> meta_;  // metaindex: name -> value
  std::int64_t value_index_growth_ = 0;
};

Status ColumnarRewriter::CollectMoved() {
  BLOOMCODEC_RETURN_IF_ERROR(CollectMetaindexBlocks(t_, moved_));
  std::optional<BlockHandle> value_index;
  for (const MovedBlock& m : moved_) {
    if (m.what == Moved::kValueIndex) value_index = m.old;
  }
  std::stable_sort(moved_.begin(), moved_.end(), [](const MovedBlock& a, const MovedBlock& b) {
    return a.old.offset < b.old.offset;
  });
  for (const MovedBlock& m : moved_) {
    if (m.what == Moved::kValueBlock && m.old.offset > value_index->offset) {
      return Status::Unsupported(t_.source() + ": a value block at " +
                                 std::to_string(m.old.offset) +
                                 " after the value index: not laid out as Pebble writes; not "
                                 "rewritten");
    }
  }
  return Status();
}

// Where the data and index blocks end: the first block after them (the filter, else the first
// block that moves, else the properties). Every index block and data block must end there.
Result<std::uint64_t> ColumnarRewriter::KeptEnd() const {
  std::uint64_t end = t_.properties_handle().offset;
  for (const MovedBlock& m : moved_) end = std::min(end, m.old.offset);
  if (t_.filter().stored()) end = std::min(end, t_.filter().handle.offset);
  std::uint64_t index_end = data_blocks_end_;
  auto after = [&](const BlockHandle& h) {
    index_end = std::max(index_end, h.offset + h.size + kBlockTrailerSize);
  };
  after(t_.footer().index_handle);
  BLOOMCODEC_RETURN_IF_ERROR(t_.ForEachIndexPartition([&](ByteSpan, const BlockHandle& h) {
    after(h);
    return Status();
  }));
  if (index_end > end) {
    return Status::Unsupported(t_.source() + ": a data or index block ends at " +
                               std::to_string(index_end) + ", after a meta block at " +
                               std::to_string(end) +
                               ": not laid out as Pebble's columnar writer does; not rewritten");
  }
  return end;
}

Status ColumnarRewriter::EmitMoved(const MovedBlock& m) {
  if (m.what == Moved::kValueIndex) {
    const AppendedValueIndex vi = AppendValueIndex(new_values_, t_.footer().checksum, out_, base_);
    value_index_growth_ =
        static_cast<std::int64_t>(vi.size) - static_cast<std::int64_t>(m.old.size);
    meta_[m.meta_name] = vi.metaindex_value;
    return Status();
  }
  BLOOMCODEC_RETURN_IF_ERROR(
      blocktable::CheckHandleInFile(m.old, t_.file().size(), t_.source(), "block moved"));
  const BlockHandle moved{base_ + out_.size(), m.old.size};
  const ByteSpan whole = t_.file().subspan(m.old.offset, m.old.size + kBlockTrailerSize);
  out_.insert(out_.end(), whole.begin(), whole.end());
  if (m.what == Moved::kValueBlock) {
    new_values_.push_back(moved);
  } else {
    meta_[m.meta_name] = blocktable::BlockHandleBytes(moved);
  }
  return Status();
}

// The properties with the new filter's family and size, the value index's size and the
// compression statistics those blocks change; every other entry as recorded.
Result<std::map<std::string, ByteVector>> ColumnarRewriter::NewProperties() const {
  std::map<std::string, ByteVector> props;
  for (const rocksdb::TableProperty& p : t_.properties().entries) {
    props[p.name] = ByteVector(p.raw.begin(), p.raw.end());
  }
  const std::uint64_t old_filter = t_.filter().stored() ? t_.filter().handle.size : 0;
  const std::uint64_t new_filter = filter_ ? filter_->size() : 0;
  if (filter_) {
    props["rocksdb.filter.policy"] = ByteVector(kBloomFamily.begin(), kBloomFamily.end());
  } else {
    props.erase("rocksdb.filter.policy");
  }
  // Pebble writes the filter size always (encodeempty), 0 without a filter.
  props["rocksdb.filter.size"] = VarintBytes(new_filter);
  if (value_index_growth_ != 0) {
    if (const std::optional<std::uint64_t> v = t_.Number("pebble.value-blocks.size")) {
      props["pebble.value-blocks.size"] = VarintBytes(
          static_cast<std::uint64_t>(static_cast<std::int64_t>(*v) + value_index_growth_));
    }
  }
  const std::int64_t growth = static_cast<std::int64_t>(new_filter) -
                              static_cast<std::int64_t>(old_filter) + value_index_growth_;
  if (const std::optional<std::string> stats = t_.properties().String("pebble.compression_stats")) {
    const std::optional<std::string> adjusted = AdjustedCompressionStats(*stats, growth);
    if (!adjusted) {
      return Status::Unsupported(t_.source() + ": pebble.compression_stats \"" + *stats +
                                 "\" is not of the form Pebble writes; not rewritten");
    }
    props["pebble.compression_stats"] = ByteVector(adjusted->begin(), adjusted->end());
  }
  return props;
}

// Pebblev7 compresses the properties as the table's other blocks: the input's own type, else
// the one rocksdb.compression names. MinLZ (type 8) we cannot write: stored uncompressed.
BlockCompression ColumnarRewriter::PropertiesCompression() const {
  const BlockHandle& h = t_.properties_handle();
  const std::uint8_t type = t_.file()[h.offset + h.size];
  if (type == 1 || type == 7) return static_cast<BlockCompression>(type);
  if (type != 0) return BlockCompression::kNone;
  const std::optional<std::string> name = t_.properties().String("rocksdb.compression");
  if (name == "Snappy") return BlockCompression::kSnappy;
  if (name == "ZSTD") return BlockCompression::kZstd;
  return BlockCompression::kNone;
}

Status ColumnarRewriter::WriteProperties() {
  BLOOMCODEC_ASSIGN_OR_RETURN(const auto props, NewProperties());
  BlockHandle h;
  if (t_.version() >= kAttributesFormat) {
    colblk::KeyValueBlockWriter kv;
    for (const auto& [name, value] : props) kv.Add(AsBytes(name), value);
    BLOOMCODEC_ASSIGN_OR_RETURN(const ByteVector block, kv.Finish(kv.rows()));
    h = AppendPebbleBlock(block, t_.footer().checksum, PropertiesCompression(), out_, base_);
  } else {
    h = AppendPebbleBlock(EncodeNamedBlock(props, kPropertiesRestartInterval), t_.footer().checksum,
                          BlockCompression::kNone, out_, base_);
  }
  meta_["rocksdb.properties"] = blocktable::BlockHandleBytes(h);
  return Status();
}

// The metaindex: a row block of restart interval 1 in Pebblev5, a key-value block from
// Pebblev6; uncompressed. Then the footer with the table's version, checksum type, index
// handle and (v7+) attributes; AppendPebbleFooter computes the v6+ footer checksum.
void ColumnarRewriter::WriteMetaindexAndFooter() {
  ByteVector metaindex;
  if (t_.version() >= kFooterChecksumFormat) {
    colblk::KeyValueBlockWriter kv;
    for (const auto& [name, value] : meta_) kv.Add(AsBytes(name), value);
    metaindex = kv.Finish(kv.rows()).value();
  } else {
    metaindex = EncodeNamedBlock(meta_, kMetaindexRestartInterval);
  }
  PebbleFooter footer;
  footer.version = t_.version();
  footer.footer = t_.footer();
  footer.attributes = t_.attributes();
  footer.footer.metaindex_handle =
      AppendPebbleBlock(metaindex, t_.footer().checksum, BlockCompression::kNone, out_, base_);
  AppendPebbleFooter(footer, out_);
}

Result<PebbleTail> ColumnarRewriter::Run() {
  BLOOMCODEC_RETURN_IF_ERROR(CollectMoved());
  BLOOMCODEC_ASSIGN_OR_RETURN(base_, KeptEnd());  // kept as they are, not copied
  if (filter_) {
    meta_[std::string(kBloomFilterBlockName)] = blocktable::BlockHandleBytes(
        AppendPebbleBlock(*filter_, t_.footer().checksum, BlockCompression::kNone, out_, base_));
  }
  for (const MovedBlock& m : moved_) BLOOMCODEC_RETURN_IF_ERROR(EmitMoved(m));
  BLOOMCODEC_RETURN_IF_ERROR(WriteProperties());
  WriteMetaindexAndFooter();
  return PebbleTail{base_, std::move(out_)};
}

}  // namespace

namespace {

Status ColumnarTableOnly(const PebbleTable& t) {
  if (t.columnar()) return Status();
  return Status::InvalidArgument(t.source() + ": " + PebbleFormatName(t.version()) +
                                 " is a row table (RewritePebbleFilter rewrites it)");
}

}  // namespace

Result<PebbleRewrite> RewriteColumnarFilter(const PebbleTable& t, const BloomPolicy& policy) {
  BLOOMCODEC_RETURN_IF_ERROR(ColumnarTableOnly(t));
  return RewriteWithItsKeys(
      t, [&](const PebbleFilterKeySet& read) { return RewriteColumnarFilter(t, policy, read); });
}

Result<PebbleRewrite> RewriteColumnarFilter(const PebbleTable& t, const BloomPolicy& policy,
                                            const PebbleFilterKeySet& read) {
  BLOOMCODEC_RETURN_IF_ERROR(ColumnarTableOnly(t));
  return RewriteWhole(t, policy, read);
}

Result<PebbleTail> RewriteColumnarTail(const PebbleTable& t, const NewFilter& filter) {
  return ColumnarRewriter(t, filter.block, filter.data_end).Run();
}

}  // namespace bloomcodec::pebble
