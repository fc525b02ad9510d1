#include "blocktable/block_builder.h"

#include <algorithm>

#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(std::max(1, restart_interval)), restarts_{0} {}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

void BlockBuilder::Add(ByteSpan key, ByteSpan value) {
  std::size_t shared = 0;
  if (counter_ < restart_interval_) {
    const std::size_t min_length = std::min(last_key_.size(), key.size());
    while (shared < min_length && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<std::uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const std::size_t non_shared = key.size() - shared;
  ByteWriter w(buffer_);
  w.PutVarint32(static_cast<std::uint32_t>(shared));
  w.PutVarint32(static_cast<std::uint32_t>(non_shared));
  w.PutVarint32(static_cast<std::uint32_t>(value.size()));
  w.PutBytes(key.subspan(shared));
  w.PutBytes(value);
  last_key_.resize(shared);
  last_key_.insert(last_key_.end(), key.begin() + shared, key.end());
  ++counter_;
}

ByteSpan BlockBuilder::Finish() {
  ByteWriter w(buffer_);
  for (std::uint32_t r : restarts_) w.PutLittleU32(r);
  w.PutLittleU32(static_cast<std::uint32_t>(restarts_.size()));
  finished_ = true;
  return buffer_;
}

}  // namespace bloomcodec::blocktable
