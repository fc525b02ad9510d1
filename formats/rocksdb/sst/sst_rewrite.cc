// Rewriting an SST's full filter (add, replace, remove), keeping every other block's bytes.
#include <algorithm>
#include <map>
#include <string>

#include "blocktable/block_builder.h"
#include "codec/byte_writer.h"
#include "codec/parallel.h"
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

// A new file's tail being built: its bytes start at `base` in the file.
struct SstTailBytes {
  std::uint64_t base = 0;
  ByteVector bytes;
  std::uint64_t at() const { return base + bytes.size(); }
};

// A block (with its 5-byte trailer) copied from `file`; returns its new handle. A context
// checksum (format_version >= 6) depends on the block's offset: it is moved along (the stored
// value keeps whatever it was, right or wrong, relative to the block's place).
BlockHandle CopyBlock(ByteSpan file, const BlockHandle& h, const TrailerFormat& trailer,
                      SstTailBytes& out) {
  BlockHandle moved{out.at(), h.size};
  const ByteSpan whole = file.subspan(h.offset, h.size + kBlockTrailerSize);
  const std::size_t start = out.bytes.size();
  out.bytes.insert(out.bytes.end(), whole.begin(), whole.end());
  if (trailer.base_context_checksum != 0 && moved.offset != h.offset) {
    std::uint8_t* stored = out.bytes.data() + start + h.size + 1;
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | stored[i];
    v = v - ContextModifier(trailer.base_context_checksum, h.offset) +
        ContextModifier(trailer.base_context_checksum, moved.offset);
    for (int i = 0; i < 4; ++i) stored[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  return moved;
}

BlockHandle WriteBlock(ByteSpan contents, const TrailerFormat& trailer, SstTailBytes& out) {
  BlockHandle h{out.at(), contents.size()};
  out.bytes.insert(out.bytes.end(), contents.begin(), contents.end());
  out.bytes.push_back(0);
  ByteWriter(out.bytes).PutLittleU32(StoredBlockChecksum(trailer, contents, 0, h.offset));
  return h;
}

// One pass over the data blocks: the entries, the user keys RocksDB's builder adds (each once,
// in file order) and their collapsed hashes (when a filter is built), where the data ends.
struct SstKeyPass {
  std::uint64_t entries = 0;
  std::uint64_t filter_entries = 0;
  std::uint64_t data_end = 0;
  std::vector<std::uint64_t> hashes;
};

// A run of data blocks read (checksums, decompression) and hashed on one of the pool's workers
// (codec/parallel.h). Keys and hashes collapse within the run; the merge collapses across runs.
struct SstHashedRun {
  Status status;
  SstKeyPass pass;
  ByteVector first_key, last_key;  // user keys (the run has a key when filter_entries > 0)
};
constexpr std::size_t kSstBlocksPerRun = 128;

Status HashSstRun(const SstReader& sst, std::span<const BlockHandle> blocks,
                  std::optional<FilterEncoding> hashing, SstHashedRun& run) {
  SstKeyPass& pass = run.pass;
  for (const BlockHandle& h : blocks) {
    BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block block, sst.ReadDataBlock(h));
    blocktable::BlockIterator it(block, blocktable::KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      ++pass.entries;
      const ByteSpan user = UserKeyOf(it.key());
      const ByteVector& last = run.last_key;
      const bool again =
          pass.filter_entries > 0 && std::equal(user.begin(), user.end(), last.begin(), last.end());
      if (!again) {
        if (pass.filter_entries++ == 0) run.first_key.assign(user.begin(), user.end());
        run.last_key.assign(user.begin(), user.end());
        if (hashing) {
          AppendCollapsedHashes(*hashing, std::span<const ByteSpan>(&user, 1), pass.hashes);
        }
      }
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
  }
  return Status();
}

Result<SstKeyPass> PassOverKeys(const SstReader& sst, std::optional<FilterEncoding> hashing) {
  // Every block the index lists (blocks without entries too).
  std::vector<BlockHandle> blocks;
  SstKeyPass pass;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    pass.data_end = std::max(pass.data_end, h.offset + h.size + kBlockTrailerSize);
    blocks.push_back(h);
    return Status();
  }));
  std::vector<SstHashedRun> runs((blocks.size() + kSstBlocksPerRun - 1) / kSstBlocksPerRun);
  ParallelFor(runs.size(), [&](std::size_t r) {
    const std::size_t from = r * kSstBlocksPerRun;
    const std::size_t n = std::min(kSstBlocksPerRun, blocks.size() - from);
    runs[r].status = HashSstRun(sst, std::span(blocks).subspan(from, n), hashing, runs[r]);
  });
  // In file order, as one pass would have made them: a run's first key equal to the last key
  // before it is not added again, and a first hash equal to the last one before it collapses.
  ByteVector last_key;
  std::size_t hashes = 0;  // sized once: no doubling while the runs' hashes are still held
  for (const SstHashedRun& run : runs) hashes += run.pass.hashes.size();
  pass.hashes.reserve(hashes);
  for (SstHashedRun& run : runs) {
    BLOOMCODEC_RETURN_IF_ERROR(run.status);
    SstKeyPass& p = run.pass;
    pass.entries += p.entries;
    if (p.filter_entries == 0) continue;
    const bool same_key = pass.filter_entries > 0 && run.first_key == last_key;
    pass.filter_entries += p.filter_entries - (same_key ? 1 : 0);
    std::size_t skip = 0;
    if (!p.hashes.empty() && !pass.hashes.empty() && p.hashes.front() == pass.hashes.back()) {
      skip = 1;
    }
    pass.hashes.insert(pass.hashes.end(), p.hashes.begin() + static_cast<std::ptrdiff_t>(skip),
                       p.hashes.end());
    p.hashes = {};
    last_key = std::move(run.last_key);
  }
  return pass;
}

Status AskEveryHash(const std::string& src, const ByteVector& filter,
                    const std::vector<std::uint64_t>& hashes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader reader, FullFilterReader::Parse(filter, src));
  if (reader.FirstHashDenied(hashes) < hashes.size()) {
    return Status::Internal(src +
                            ": the rebuilt filter answers \"not there\" for a key the "
                            "table holds");
  }
  return Status();
}

FilterEncoding EncodingOf(const SstReader& sst, std::optional<FilterEncoding> wanted) {
  if (wanted) return *wanted;
  if (sst.properties()->String("rocksdb.filter.policy") == "ribbonfilter") {
    return FilterEncoding::kRibbon;
  }
  return sst.footer().format_version >= 5 ? FilterEncoding::kFastLocalBloom
                                          : FilterEncoding::kLegacyBloom;
}

// The properties block: every entry kept, the filter's replaced or dropped.
ByteVector PropertiesWith(const SstReader& sst, const std::optional<ByteVector>& filter,
                          FilterEncoding encoding, std::uint64_t filter_entries) {
  std::map<std::string, ByteVector> props;
  for (const TableProperty& p : sst.properties()->entries) {
    props[p.name] = ByteVector(p.raw.begin(), p.raw.end());
  }
  if (filter) {
    const std::string_view policy =
        encoding == FilterEncoding::kRibbon ? "ribbonfilter" : "bloomfilter";
    props["rocksdb.filter.policy"] = ByteVector(policy.begin(), policy.end());
    props["rocksdb.filter.size"] = VarintBytes(filter->size());
    props["rocksdb.num.filter_entries"] = VarintBytes(filter_entries);
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
  const ByteSpan raw = properties.Finish();
  return ByteVector(raw.begin(), raw.end());
}

// Everything after the data blocks: the new filter, the other meta blocks and the index copied,
// the properties, metaindex and footer.
Result<ByteVector> WriteSstTail(const SstReader& sst, const std::optional<ByteVector>& filter,
                                FilterEncoding encoding, const SstKeyPass& pass) {
  const std::string& src = sst.source();
  const TrailerFormat checksum = sst.BlockOptions().trailer;
  SstTailBytes out{pass.data_end, {}};
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
  meta[std::string(kPropertiesBlockName)] =
      WriteBlock(PropertiesWith(sst, filter, encoding, pass.filter_entries), checksum, out);
  BlockBuilder metaindex(1);
  for (const auto& [name, handle] : meta) {
    ByteVector h;
    AppendBlockHandle(handle, h);
    metaindex.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()), h);
  }
  Footer footer = sst.footer();
  footer.metaindex_handle = WriteBlock(metaindex.Finish(), checksum, out);
  if (!footer.context_checksums()) footer.index_handle = index;
  AppendFooter(footer, out.bytes, out.base);
  return std::move(out.bytes);
}

}  // namespace

Status CheckFilterRewritable(const SstReader& sst) {
  const std::string& src = sst.source();
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kPartitioned) {
    return Status::Unsupported(src +
                               ": a partitioned filter (partition_filters with a two-level "
                               "index): rebuilding partitioned filters is not supported yet; "
                               "rewriting the filter is done for full filters with a one-level "
                               "index only");
  }
  if (sst.index_type() == IndexType::kTwoLevelIndexSearch ||
      (sst.filter() && sst.filter()->placement != FilterPlacement::kFull)) {
    return Status::Unsupported(src +
                               ": a two-level index or a block-based filter: "
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
  return Status();
}

Result<SstFilterTail> RewriteSstFilterTail(const SstReader& sst, std::optional<double> bits_per_key,
                                           std::optional<FilterEncoding> wanted) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckFilterRewritable(sst));
  const FilterEncoding encoding = EncodingOf(sst, wanted);
  BLOOMCODEC_ASSIGN_OR_RETURN(
      SstKeyPass pass, PassOverKeys(sst, bits_per_key ? std::optional(encoding) : std::nullopt));
  std::optional<ByteVector> filter;
  if (bits_per_key) {
    BLOOMCODEC_ASSIGN_OR_RETURN(filter,
                                BuildFullFilterFromHashes(encoding, *bits_per_key, pass.hashes));
    BLOOMCODEC_RETURN_IF_ERROR(AskEveryHash(sst.source(), *filter, pass.hashes));
  }
  SstFilterTail out;
  out.kept_prefix = pass.data_end;
  out.entries = pass.entries;
  out.filter_block_size = filter ? filter->size() : 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(out.tail, WriteSstTail(sst, filter, encoding, pass));
  return out;
}

Result<ByteVector> RewriteSstFilter(const SstReader& sst, std::optional<double> bits_per_key,
                                    std::optional<FilterEncoding> wanted) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstFilterTail t, RewriteSstFilterTail(sst, bits_per_key, wanted));
  ByteVector out(sst.file().begin(), sst.file().begin() + t.kept_prefix);
  out.insert(out.end(), t.tail.begin(), t.tail.end());
  return out;
}

}  // namespace bloomcodec::rocksdb
