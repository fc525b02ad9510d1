// Rewriting an SST's full filter (add, replace, remove), keeping every other block's bytes.
#include <algorithm>
#include <map>
#include <string>

#include "blocktable/block_builder.h"
#include "codec/byte_writer.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::rocksdb {

using blocktable::AppendBlockHandle;
using blocktable::AppendFooter;
using blocktable::BlockBuilder;
using blocktable::BlockHandle;
using blocktable::ChecksumType;
using blocktable::ContextModifier;
using blocktable::Footer;
using blocktable::kBlockTrailerSize;
using blocktable::StoredBlockChecksum;
using blocktable::TrailerFormat;

namespace {

// A block (with its 5-byte trailer) copied from `file`; returns its new handle. A context
// checksum (format_version >= 6) depends on the block's offset: it is moved along (the stored
// value keeps whatever it was, right or wrong, relative to the block's place).
BlockHandle CopyBlock(ByteSpan file, const BlockHandle& h, const TrailerFormat& trailer,
                      ByteVector& out) {
  BlockHandle moved{out.size(), h.size};
  const ByteSpan whole = file.subspan(h.offset, h.size + kBlockTrailerSize);
  out.insert(out.end(), whole.begin(), whole.end());
  if (trailer.base_context_checksum != 0 && moved.offset != h.offset) {
    std::uint8_t* stored = out.data() + moved.offset + h.size + 1;
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | stored[i];
    v = v - ContextModifier(trailer.base_context_checksum, h.offset) +
        ContextModifier(trailer.base_context_checksum, moved.offset);
    for (int i = 0; i < 4; ++i) stored[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  return moved;
}

BlockHandle WriteBlock(ByteSpan contents, const TrailerFormat& trailer, ByteVector& out) {
  BlockHandle h{out.size(), contents.size()};
  out.insert(out.end(), contents.begin(), contents.end());
  out.push_back(0);
  ByteWriter(out).PutLittleU32(StoredBlockChecksum(trailer, contents, 0, h.offset));
  return h;
}

}  // namespace

Result<ByteVector> RewriteSstFilter(const SstReader& sst, std::optional<double> bits_per_key,
                                    std::optional<FilterEncoding> wanted) {
  const std::string& src = sst.source();
  if (sst.index_type() == IndexType::kTwoLevelIndexSearch ||
      (sst.filter() && sst.filter()->placement != FilterPlacement::kFull)) {
    return Status::Unsupported(src +
                               ": a two-level index, a partitioned or a block-based filter: "
                               "its partitions would move, or its filters follow the data "
                               "blocks; rewriting the filter is done for full filters "
                               "with a one-level index only");
  }
  if (!sst.whole_key_filtering()) {
    return Status::Unsupported(src +
                               ": whole-key filtering is off (the filter would hold "
                               "prefixes); rewriting needs a whole-key filter");
  }
  if (!sst.properties()) {
    return Status::Unsupported(src +
                               ": no properties block (a LevelDB-written table): RocksDB "
                               "would not know the filter's policy; not rewritten");
  }
  // The keys, each once, in file order; the data region is everything up to the last data block.
  KeyList keys;
  ByteVector last;
  bool any = false;
  std::uint64_t data_end = 0;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle& h) {
    data_end = std::max(data_end, h.offset + h.size + kBlockTrailerSize);
    const ByteSpan user = UserKeyOf(key);
    if (any && std::equal(user.begin(), user.end(), last.begin(), last.end())) return Status();
    keys.Add(user);
    last.assign(user.begin(), user.end());
    any = true;
    return Status();
  }));
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    data_end = std::max(data_end, h.offset + h.size + kBlockTrailerSize);
    return Status();
  }));

  FilterEncoding encoding = sst.footer().format_version >= 5 ? FilterEncoding::kFastLocalBloom
                                                             : FilterEncoding::kLegacyBloom;
  if (sst.properties()->String("rocksdb.filter.policy") == "ribbonfilter") {
    encoding = FilterEncoding::kRibbon;
  }
  if (wanted) encoding = *wanted;
  std::optional<ByteVector> filter;
  if (bits_per_key) {
    BLOOMCODEC_ASSIGN_OR_RETURN(filter, BuildFullFilter(encoding, *bits_per_key, keys));
  }

  const TrailerFormat checksum = sst.BlockOptions().trailer;
  ByteVector out(sst.file().begin(), sst.file().begin() + data_end);
  std::map<std::string, BlockHandle> meta;  // metaindex entries, sorted bytewise
  if (filter) {
    meta["fullfilter." + std::string(kBuiltinFilterName)] = WriteBlock(*filter, checksum, out);
  }
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    const bool old_filter = sst.filter() && e.key == sst.filter()->metaindex_key;
    if (old_filter || e.key == kPropertiesBlockName || e.key == "rocksdb.stats" ||
        (sst.footer().context_checksums() && e.key == blocktable::kIndexMetaBlockName)) {
      continue;
    }
    if (!e.handle) {
      return Status::Unsupported(src + ": metaindex entry " + e.key +
                                 " is not a block handle; not rewritten");
    }
    if (e.key.starts_with("fullfilter.") || e.key.starts_with("partitionedfilter.") ||
        e.key.starts_with("filter.")) {
      continue;  // filters of other policies: the new filter replaces every filter
    }
    meta[e.key] = CopyBlock(sst.file(), *e.handle, checksum, out);
  }
  const BlockHandle index = CopyBlock(sst.file(), sst.index_handle(), checksum, out);
  if (sst.footer().context_checksums()) meta[std::string(blocktable::kIndexMetaBlockName)] = index;

  // Properties: every entry kept, the filter's replaced or dropped.
  std::map<std::string, ByteVector> props;
  for (const TableProperty& p : sst.properties()->entries) {
    props[p.name] = ByteVector(p.raw.begin(), p.raw.end());
  }
  if (filter) {
    const std::string_view policy =
        encoding == FilterEncoding::kRibbon ? "ribbonfilter" : "bloomfilter";
    props["rocksdb.filter.policy"] = ByteVector(policy.begin(), policy.end());
    props["rocksdb.filter.size"] = VarintBytes(filter->size());
    props["rocksdb.num.filter_entries"] = VarintBytes(keys.size());
  } else {
    props.erase("rocksdb.filter.policy");
    props["rocksdb.filter.size"] = VarintBytes(0);
    props["rocksdb.num.filter_entries"] = VarintBytes(0);
  }
  BlockBuilder properties(1);
  for (const auto& [name, value] : props) {
    properties.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()),
                   value);
  }
  meta[std::string(kPropertiesBlockName)] = WriteBlock(properties.Finish(), checksum, out);

  BlockBuilder metaindex(1);
  for (const auto& [name, handle] : meta) {
    ByteVector h;
    AppendBlockHandle(handle, h);
    metaindex.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()), h);
  }
  Footer footer = sst.footer();
  footer.metaindex_handle = WriteBlock(metaindex.Finish(), checksum, out);
  if (!footer.context_checksums()) footer.index_handle = index;
  AppendFooter(footer, out);
  return out;
}

}  // namespace bloomcodec::rocksdb
