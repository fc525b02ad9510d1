// Rewriting an SST's full filter (add, replace, remove), keeping every other block's bytes.
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "blocktable/block_builder.h"
#include "blocktable/stream.h"
#include "codec/byte_writer.h"
#include "codec/parallel.h"
#include "rocksdb/sst/rebuild_tap.h"
#include "rocksdb/sst/sst_filter_stats.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_rewrite_prefix.h"
#include "rocksdb/sst/sst_tail.h"
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
                  std::optional<FilterEncoding> hashing, const InputFile* mapped,
                  SstHashedRun& run) {
  SstKeyPass& pass = run.pass;
  blocktable::BlockRunPages pages(mapped, blocks);  // given back behind the pass
  for (const BlockHandle& h : blocks) {
    BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block block, sst.ReadDataBlock(h));
    pages.Read(h);
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

// Every block the index lists (blocks without entries too), and where the data blocks end.
Result<std::vector<BlockHandle>> ListDataBlocks(const SstReader& sst, std::uint64_t& data_end) {
  std::vector<BlockHandle> blocks;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    data_end = std::max(data_end, h.offset + h.size + kBlockTrailerSize);
    blocks.push_back(h);
    return Status();
  }));
  return blocks;
}

Result<SstKeyPass> PassOverKeys(const SstReader& sst, std::optional<FilterEncoding> hashing,
                                const InputFile* mapped) {
  SstKeyPass pass;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<BlockHandle> blocks, ListDataBlocks(sst, pass.data_end));
  std::vector<SstHashedRun> runs((blocks.size() + kSstBlocksPerRun - 1) / kSstBlocksPerRun);
  ParallelFor(runs.size(), [&](std::size_t r) {
    const std::size_t from = r * kSstBlocksPerRun;
    const std::size_t n = std::min(kSstBlocksPerRun, blocks.size() - from);
    runs[r].status = HashSstRun(sst, std::span(blocks).subspan(from, n), hashing, mapped, runs[r]);
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

// PassOverKeys for a table with a prefix extractor: every entry in file order, one filter.
Result<SstKeyPass> PassOverPrefixedKeys(const SstReader& sst, const PrefixExtractor& extractor,
                                        FilterEncoding encoding, const InputFile* mapped) {
  SstKeyPass pass;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<BlockHandle> blocks, ListDataBlocks(sst, pass.data_end));
  BLOOMCODEC_ASSIGN_OR_RETURN(PrefixedEntries e,
                              rocksdb::PassOverPrefixedKeys(sst, extractor, encoding,
                                                            std::span(&blocks, 1), false, mapped));
  pass.entries = e.entries;
  pass.hashes = std::move(e.filters.front());
  pass.filter_entries = pass.hashes.size();
  return pass;
}

FilterEncoding EncodingOf(const SstReader& sst, std::optional<FilterEncoding> wanted) {
  return wanted ? *wanted : StoredFilterEncoding(sst);
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
    meta["fullfilter." + std::string(kBuiltinFilterName)] = WriteSstBlock(*filter, checksum, out);
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
    meta[e.key] = CopySstBlock(sst.file(), *e.handle, checksum, out);
  }
  const BlockHandle index = CopySstBlock(sst.file(), sst.index_handle(), checksum, out);
  WritePropertiesMetaindexAndFooter(sst, index, meta,
                                    FilterPropertyChanges(sst, filter.has_value(), encoding,
                                                          filter ? filter->size() : 0,
                                                          pass.filter_entries),
                                    out);
  return std::move(out.bytes);
}

}  // namespace

BlockHandle CopySstBlock(ByteSpan file, const BlockHandle& h, const TrailerFormat& trailer,
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

BlockHandle WriteSstBlock(ByteSpan contents, const TrailerFormat& trailer, SstTailBytes& out) {
  BlockHandle h{out.at(), contents.size()};
  out.bytes.insert(out.bytes.end(), contents.begin(), contents.end());
  out.bytes.push_back(0);
  ByteWriter(out.bytes).PutLittleU32(StoredBlockChecksum(trailer, contents, 0, h.offset));
  return h;
}

void WritePropertiesMetaindexAndFooter(const SstReader& sst, const BlockHandle& index,
                                       std::map<std::string, BlockHandle>& meta,
                                       const PropertyChanges& changes, SstTailBytes& out) {
  const TrailerFormat trailer = sst.BlockOptions().trailer;
  if (sst.footer().context_checksums()) meta[std::string(blocktable::kIndexMetaBlockName)] = index;
  meta[std::string(kPropertiesBlockName)] =
      WriteSstBlock(SstPropertiesWith(sst, changes), trailer, out);
  BlockBuilder metaindex(1);
  for (const auto& [name, handle] : meta) {
    ByteVector h;
    AppendBlockHandle(handle, h);
    metaindex.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()), h);
  }
  Footer footer = sst.footer();
  footer.metaindex_handle = WriteSstBlock(metaindex.Finish(), trailer, out);
  if (!footer.context_checksums()) footer.index_handle = index;
  AppendFooter(footer, out.bytes, out.base);
}

ByteVector SstPropertiesWith(const SstReader& sst, const PropertyChanges& changes) {
  std::map<std::string, ByteVector> props;
  for (const TableProperty& p : sst.properties()->entries) {
    props[p.name] = ByteVector(p.raw.begin(), p.raw.end());
  }
  for (const auto& [name, value] : changes) {
    if (value) {
      props[name] = *value;
    } else {
      props.erase(name);
    }
  }
  // RocksDB's PropertyBlockBuilder shares key prefixes across the whole block (one restart).
  BlockBuilder properties(std::numeric_limits<int>::max());
  for (const auto& [name, value] : props) {
    properties.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()),
                   value);
  }
  const ByteSpan raw = properties.Finish();
  return ByteVector(raw.begin(), raw.end());
}

PropertyChanges FilterPropertyChanges(const SstReader& sst, bool has_filter,
                                      FilterEncoding encoding, std::uint64_t filter_size,
                                      std::uint64_t filter_entries) {
  PropertyChanges c;
  if (has_filter) {
    const std::string_view policy = RebuiltFilterPolicyName(sst, encoding);
    c["rocksdb.filter.policy"] = ByteVector(policy.begin(), policy.end());
  } else {
    c["rocksdb.filter.policy"] = std::nullopt;
  }
  c["rocksdb.filter.size"] = VarintBytes(has_filter ? filter_size : 0);
  c["rocksdb.num.filter_entries"] = VarintBytes(has_filter ? filter_entries : 0);
  return c;
}

// What the rewrite rebuilds: a full filter under a one- or two-level index, a partitioned filter
// (with its two-level index, as RocksDB writes it), and a block-based filter, which becomes a
// full filter: RocksDB stopped writing block-based filters in 7.0 and reading them in 7.4
// (HISTORY.md), while every version that wrote them reads full filters.
Status CheckFilterRewritable(const SstReader& sst) {
  const std::string& src = sst.source();
  const bool partitioned = sst.filter() && sst.filter()->placement == FilterPlacement::kPartitioned;
  if (partitioned && sst.index_type() != IndexType::kTwoLevelIndexSearch) {
    return Status::Unsupported(src +
                               ": a partitioned filter without a two-level index (RocksDB "
                               "writes them together); not rewritten");
  }
  // A prefix seek asks the filter for a prefix alone: the rebuilt filter must hold the prefixes
  // RocksDB added, so only extractors whose prefixes we compute are rebuilt.
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<PrefixExtractor> prefix, RebuildableExtractor(sst));
  if (!sst.whole_key_filtering() && !prefix) {
    return Status::Unsupported(src +
                               ": whole-key filtering is off without a prefix extractor "
                               "(RocksDB writes no filter then); not rewritten");
  }
  if (!sst.properties()) {
    return Status::Unsupported(src +
                               ": no properties block (a LevelDB-written table): RocksDB "
                               "would not know the filter's policy; not rewritten");
  }
  return Status();
}

Result<SstFilterTail> RewriteSstFilterTail(const SstReader& sst, std::optional<double> bits_per_key,
                                           std::optional<FilterEncoding> wanted,
                                           const InputFile* mapped, const RebuiltFilter* prebuilt) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckFilterRewritable(sst));
  const FilterEncoding encoding = EncodingOf(sst, wanted);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<PrefixExtractor> prefix, RebuildableExtractor(sst));
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kPartitioned) {
    return RewritePartitionedFilterTail(sst, bits_per_key, encoding, prefix, mapped);
  }
  std::optional<ByteVector> filter;
  SstKeyPass pass;
  if (prebuilt && !prefix && bits_per_key && prebuilt->bits_per_key == *bits_per_key &&
      prebuilt->encoding == encoding && prebuilt->file_size == sst.file().size()) {
    // Verify's scan read the data blocks (checksums, every entry) and built the filter.
    BLOOMCODEC_RETURN_IF_ERROR(ListDataBlocks(sst, pass.data_end).status());
    pass.entries = prebuilt->entries;
    pass.filter_entries = prebuilt->filter_entries;
    filter = prebuilt->filter;
  } else {
    // The step where keys become filter entries: whole keys, or keys and prefixes.
    BLOOMCODEC_ASSIGN_OR_RETURN(
        pass,
        prefix ? PassOverPrefixedKeys(sst, *prefix, encoding, mapped)
               : PassOverKeys(sst, bits_per_key ? std::optional(encoding) : std::nullopt, mapped));
    if (bits_per_key) {
      BLOOMCODEC_ASSIGN_OR_RETURN(
          filter, BuildCheckedFullFilter(sst.source(), encoding, *bits_per_key, pass.hashes));
    }
  }
  SstFilterTail out;
  out.kept_prefix = pass.data_end;
  out.entries = pass.entries;
  out.filter_block_size = filter ? filter->size() : 0;
  if (sst.index_type() == IndexType::kTwoLevelIndexSearch) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        out.tail,
        WriteTwoLevelIndexTail(sst, filter, encoding, pass.filter_entries, pass.data_end));
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(out.tail, WriteSstTail(sst, filter, encoding, pass));
  }
  return out;
}

Result<ByteVector> BuildCheckedFullFilter(const std::string& source, FilterEncoding encoding,
                                          double bits_per_key,
                                          std::span<const std::uint64_t> hashes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector filter,
                              BuildFullFilterFromHashes(encoding, bits_per_key, hashes));
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader reader, FullFilterReader::Parse(filter, source));
  if (reader.FirstHashDenied(hashes) < hashes.size()) {
    return Status::Internal(source +
                            ": the rebuilt filter answers \"not there\" for a key the "
                            "table holds");
  }
  return filter;
}

Result<ByteVector> RewriteSstFilter(const SstReader& sst, std::optional<double> bits_per_key,
                                    std::optional<FilterEncoding> wanted) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstFilterTail t, RewriteSstFilterTail(sst, bits_per_key, wanted));
  ByteVector out(sst.file().begin(), sst.file().begin() + t.kept_prefix);
  out.insert(out.end(), t.tail.begin(), t.tail.end());
  return out;
}

}  // namespace bloomcodec::rocksdb
