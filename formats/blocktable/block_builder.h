// Building one block of a block-based table: prefix-compressed entries and restart points, as
// LevelDB's table/block_builder.cc writes them (RocksDB's BlockBuilder writes the same bytes for
// its default kDataBlockBinarySearch blocks).
//
//   bloomcodec::blocktable::BlockBuilder block(16);
//   block.Add(key, value);              // keys increasing; checked by the caller
//   ByteSpan bytes = block.Finish();    // entries + restart array + count
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bloomcodec/bytes.h"

namespace bloomcodec::blocktable {

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval);
  void Add(ByteSpan key, ByteSpan value);  // keys increasing; checked by the caller
  ByteSpan Finish();                       // appends the restart array; valid until Reset
  void Reset();
  // LevelDB's CurrentSizeEstimate: bytes so far + restart array + count.
  std::size_t SizeEstimate() const { return buffer_.size() + 4 * restarts_.size() + 4; }
  bool empty() const { return buffer_.empty(); }

 private:
  int restart_interval_;
  ByteVector buffer_;
  std::vector<std::uint32_t> restarts_;
  int counter_ = 0;
  bool finished_ = false;
  ByteVector last_key_;
};

}  // namespace bloomcodec::blocktable
