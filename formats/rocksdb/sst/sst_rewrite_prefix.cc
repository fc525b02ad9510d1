// The filter entries of a table with a prefix extractor (sst_rewrite_prefix.h): one pass over
// every data entry in file order (the builder's state runs across blocks and partitions, so the
// pass is not split among workers as the whole-key pass is).
#include "rocksdb/sst/sst_rewrite_prefix.h"

#include <string>

#include "blocktable/block.h"
#include "blocktable/stream.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::KeyOrder;

namespace {

// The rule the table's writer followed when the table tells it (FORMAT.md): a table recording
// rocksdb.key.largest.seqno was written by 9.7 or later; with whole-key filtering the rules
// before 9.6 add the same entries in the same order (9.6 reorders them: a 9.6 table is taken for
// 9.5's, the same entries); a block-based filter was written by RocksDB 6.x at the latest; a
// filter without rocksdb.num.filter_entries by a release before 6.21. nullopt: the count must
// tell.
std::optional<PrefixEntryRule> RuleTheTableTells(const SstReader& sst) {
  if (!sst.properties()) return PrefixEntryRule::kBefore95;  // RocksDB always writes them
  const bool from97 = sst.properties()->Number("rocksdb.key.largest.seqno").has_value();
  if (from97 || !sst.filter()) return PrefixEntryRule::kFrom96;  // a new filter: today's rule
  if (sst.whole_key_filtering()) return PrefixEntryRule::kBefore95;
  if (sst.filter()->placement == FilterPlacement::kBlockBased) return PrefixEntryRule::kBefore95;
  if (!sst.properties()->Number("rocksdb.num.filter_entries")) return PrefixEntryRule::kBefore95;
  return std::nullopt;
}

// Before 9.5 only when the table's count is that rule's and not the other's: otherwise 9.5's
// entries, which hold every prefix a reader of either era asks (the empty key 6.x - 9.4 add is
// asked only for a key whose prefix is empty, which 9.5's entries hold too).
PrefixEntryRule RuleFromCount(const SstReader& sst, std::uint64_t before95, std::uint64_t from95) {
  const std::uint64_t recorded = *sst.properties()->Number("rocksdb.num.filter_entries");
  return recorded == before95 && recorded != from95 ? PrefixEntryRule::kBefore95
                                                    : PrefixEntryRule::kFrom95;
}

}  // namespace

std::uint64_t PrefixedEntries::total() const {
  std::uint64_t n = 0;
  for (const auto& f : filters) n += f.size();
  return n;
}

Result<std::optional<PrefixExtractor>> RebuildableExtractor(const SstReader& sst) {
  if (!sst.properties()) return std::optional<PrefixExtractor>();
  const std::string name =
      sst.properties()->String("rocksdb.prefix.extractor.name").value_or("nullptr");
  if (name == "nullptr" || name.empty()) return std::optional<PrefixExtractor>();
  std::optional<PrefixExtractor> p = PrefixExtractor::FromPropertyName(name);
  if (!p) {
    return Status::Unsupported(sst.source() + ": prefix extractor " + PrintableName(name) +
                               " is not one whose prefixes we compute (rocksdb.FixedPrefix.N, "
                               "rocksdb.CappedPrefix.N, rocksdb.Noop, TiKV's two): the filter "
                               "holds its prefixes; not rewritten");
  }
  return p;
}

Result<PrefixedEntries> PassOverPrefixedKeys(const SstReader& sst, const PrefixExtractor& extractor,
                                             FilterEncoding encoding,
                                             std::span<const std::vector<BlockHandle>> groups,
                                             bool partitioned, const InputFile* mapped) {
  const std::optional<PrefixEntryRule> told = RuleTheTableTells(sst);
  std::vector<PrefixEntryRule> rules;
  if (told) {
    rules = {*told};
  } else {
    rules = {PrefixEntryRule::kBefore95, PrefixEntryRule::kFrom95};
  }
  std::vector<PrefixFilterEntries> builders;
  for (const PrefixEntryRule r : rules) {
    builders.emplace_back(extractor, sst.whole_key_filtering(), partitioned, r, encoding);
  }
  std::vector<PrefixedEntries> out(rules.size());
  std::uint64_t entries = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    blocktable::BlockRunPages pages(mapped, groups[g]);  // given back behind the pass
    for (const BlockHandle& h : groups[g]) {
      BLOOMCODEC_ASSIGN_OR_RETURN(Block block, sst.ReadDataBlock(h));
      pages.Read(h);
      BlockIterator it(block, KeyOrder::kInternal);
      BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
      for (; it.valid(); ++entries) {
        const ByteSpan user = UserKeyOf(it.key());
        for (std::size_t r = 0; r < rules.size(); ++r) {
          // A partition closes before the first key after it (a group without keys closes
          // empty at the same key).
          while (out[r].filters.size() < g) out[r].filters.push_back(builders[r].Close(&user));
          builders[r].Add(user);
        }
        BLOOMCODEC_RETURN_IF_ERROR(it.Next());
      }
    }
  }
  for (std::size_t r = 0; r < rules.size(); ++r) {
    while (out[r].filters.size() < groups.size()) {
      out[r].filters.push_back(builders[r].Close(nullptr));
    }
    out[r].rule = rules[r];
    out[r].entries = entries;
  }
  if (told) return std::move(out[0]);
  const PrefixEntryRule chosen = RuleFromCount(sst, out[0].total(), out[1].total());
  return std::move(out[chosen == PrefixEntryRule::kBefore95 ? 0 : 1]);
}

}  // namespace bloomcodec::rocksdb
