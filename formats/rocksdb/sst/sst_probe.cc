// The filter's answer for user keys, as BlockBasedTable::Get asks it before the index lookup.
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

using blocktable::BlockContents;
using blocktable::BlockHandle;

Result<bool> SstReader::MayContain(ByteSpan user_key) const {
  // Without whole-key filtering the filter holds prefixes only; with no prefix extractor to ask
  // (none is recorded that we could apply) Get never consults it.
  if (!filter_ || !whole_key_filtering_) return true;
  if (filter_->placement == FilterPlacement::kFull) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        FullFilterReader f,
        FullFilterReader::Parse(filter_->contents.bytes(), source_, filter_->family));
    return f.MayContain(user_key);
  }
  if (filter_->placement == FilterPlacement::kBlockBased) {
    // BlockBasedTable::Get of 6.x asks the filter of each data block the index seek lands on,
    // with that block's offset. Past the last index key no block is read and the filter is not
    // asked: "may contain" (nothing excludes the key).
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<BlockHandle> block, DataBlockFor(user_key));
    if (!block) return true;
    const leveldb::FilterBlockReader reader(filter_->contents.bytes(),
                                            leveldb::HashFlavor::kSignedTail);
    return reader.KeyMayMatch(block->offset, user_key);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle partition, FilterBlockFor(user_key));
  BLOOMCODEC_ASSIGN_OR_RETURN(
      BlockContents contents,
      blocktable::ReadBlock(file_, partition, source_, BlockOptions(), "filter partition"));
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f,
                              FullFilterReader::Parse(contents.bytes(), source_, filter_->family));
  return f.MayContain(user_key);
}

Result<bool> SstReader::FilterHolds(ByteSpan entry, ByteSpan user_key) const {
  if (!filter_ || filter_->placement == FilterPlacement::kBlockBased) return true;
  if (filter_->placement == FilterPlacement::kFull) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        FullFilterReader f,
        FullFilterReader::Parse(filter_->contents.bytes(), source_, filter_->family));
    return f.MayContain(entry);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle partition, FilterBlockFor(user_key));
  BLOOMCODEC_ASSIGN_OR_RETURN(
      BlockContents contents,
      blocktable::ReadBlock(file_, partition, source_, BlockOptions(), "filter partition"));
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f,
                              FullFilterReader::Parse(contents.bytes(), source_, filter_->family));
  return f.MayContain(entry);
}

Status SstReader::MayContainBatch(const KeyList& user_keys, std::span<std::uint8_t> answers) const {
  if (answers.size() != user_keys.size()) {
    return Status::InvalidArgument("MayContainBatch: one answer per key");
  }
  if (!filter_ || !whole_key_filtering_) {
    std::fill(answers.begin(), answers.end(), std::uint8_t{1});
    return Status();
  }
  if (filter_->placement == FilterPlacement::kFull) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        FullFilterReader f,
        FullFilterReader::Parse(filter_->contents.bytes(), source_, filter_->family));
    f.MayContainBatch(user_keys, answers);
    return Status();
  }
  for (std::size_t i = 0; i < user_keys.size(); ++i) {
    BLOOMCODEC_ASSIGN_OR_RETURN(bool maybe, MayContain(user_keys[i]));
    answers[i] = maybe ? 1 : 0;
  }
  return Status();
}

}  // namespace bloomcodec::rocksdb
