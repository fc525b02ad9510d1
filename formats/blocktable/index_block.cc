#include "blocktable/index_block.h"

#include <optional>

namespace bloomcodec::blocktable {

Status ForEachIndexEntry(const Block& index, KeyOrder order, ValueEncoding values,
                         const IndexDecoder& decode, const IndexEntryFn& fn) {
  BlockIterator it(index, order, values);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  std::optional<BlockHandle> previous;
  while (it.valid()) {
    const IndexEntry entry{index,    it.entry_position(), it.shared(),
                           it.key(), it.value(),          previous ? &*previous : nullptr};
    BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, decode(entry));
    BLOOMCODEC_RETURN_IF_ERROR(fn(it.key(), h));
    previous = h;
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return Status();
}

Status ForEachIndexedBlock(const IndexLayout& layout, const IndexDecoder& decode,
                           const ReadPartitionFn& read_partition, const IndexEntryFn& fn) {
  if (!layout.two_level) {
    return ForEachIndexEntry(*layout.index, layout.order, layout.values, decode, fn);
  }
  return ForEachIndexEntry(*layout.index, layout.order, layout.values, decode,
                           [&](ByteSpan, const BlockHandle& partition) -> Status {
                             BLOOMCODEC_ASSIGN_OR_RETURN(Block p, read_partition(partition));
                             return ForEachIndexEntry(p, layout.order, layout.values, decode, fn);
                           });
}

}  // namespace bloomcodec::blocktable
