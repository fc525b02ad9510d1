// Repair's tap on verify's check of a Cassandra sstable (see rebuild_tap.h).
#include "cassandra/rebuild_tap.h"

#include "bloomcodec/key_list.h"

namespace bloomcodec::cassandra {

void RebuildTap::Add(std::span<const Murmur3Hash> hashes) {
  const std::lock_guard<std::mutex> held(lock_);
  if (over_) return;
  count_ += hashes.size();
  if (count_ * sizeof(Murmur3Hash) > budget_) {
    over_ = true;  // the repair reads the keys again: what was kept goes now
    chunks_ = {};
    return;
  }
  chunks_.emplace_back(hashes.begin(), hashes.end());
}

void RebuildTap::MarkComplete(std::uint64_t count) {
  const std::lock_guard<std::mutex> held(lock_);
  marked_ = true;
  complete_count_ = count;
}

bool RebuildTap::complete() const {
  const std::lock_guard<std::mutex> held(lock_);
  return marked_ && !over_ && complete_count_ == count_;
}

std::uint64_t RebuildTap::count() const {
  const std::lock_guard<std::mutex> held(lock_);
  return count_;
}

void TappedFilter::Answer(std::span<const Murmur3Hash> hashes,
                          std::span<std::uint8_t> answers) const {
  tap_.Add(hashes);
  inner_.MayContainHashedBatch(hashes, answers);
}

bool TappedFilter::MayContain(ByteSpan key) const {
  const Murmur3Hash h = CassandraMurmur3(key);
  std::uint8_t answer = 0;
  Answer(std::span(&h, 1), std::span(&answer, 1));
  return answer != 0;
}

void TappedFilter::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  thread_local std::vector<Murmur3Hash> hashes;  // reused: no allocation per batch once grown
  hashes.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = CassandraMurmur3(keys[i]);
  Answer(hashes, answers);
}

void TappedFilter::MayContainBatch(std::span<const ByteSpan> keys,
                                   std::span<std::uint8_t> answers) const {
  thread_local std::vector<Murmur3Hash> hashes;
  hashes.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = CassandraMurmur3(keys[i]);
  Answer(hashes, answers);
}

}  // namespace bloomcodec::cassandra
