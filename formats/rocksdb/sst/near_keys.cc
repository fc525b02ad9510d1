// verify's near-keys measurement of an SST's full filter (near_keys.h).
#include "rocksdb/sst/near_keys.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomcodec/key_list.h"
#include "rocksdb/sst/sst_filter_stats.h"

namespace bloomcodec::rocksdb {
namespace {

constexpr std::size_t kNearBlocks = 32;
constexpr std::size_t kNearKeys = 4096;
constexpr std::uint64_t kMinNearKeys = 256;

// The key between two stored neighbours `low` < `high` that is `low` with one byte raised, at
// the first byte where the two differ (sequential ids: the id plus one); false when there is
// none strictly between them (high is low's successor there, or low's byte is 0xff, or low is a
// prefix of high).
bool Between(ByteSpan low, ByteSpan high, ByteVector& out) {
  const std::size_t n = std::min(low.size(), high.size());
  const std::size_t p = static_cast<std::size_t>(
      std::mismatch(low.begin(), low.begin() + n, high.begin()).first - low.begin());
  if (p == n || low[p] == 0xff) return false;
  out.assign(low.begin(), low.end());
  ++out[p];
  return std::lexicographical_compare(out.begin(), out.end(), high.begin(), high.end());
}

bool Same(ByteSpan a, ByteSpan b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// The distinct user keys of one data block, in stored order; false when it cannot be read.
bool BlockUserKeys(const SstReader& sst, const blocktable::BlockHandle& h, KeyList& users) {
  users.Clear();
  Result<blocktable::Block> block = sst.ReadDataBlock(h);
  if (!block.ok()) return false;
  blocktable::BlockIterator it(*block, blocktable::KeyOrder::kInternal);
  if (!it.SeekToFirst().ok()) return false;
  while (it.valid()) {
    const ByteSpan user = UserKeyOf(it.key());
    if (users.size() == 0 || !Same(users[users.size() - 1], user)) users.Add(user);
    if (!it.Next().ok()) return false;
  }
  return true;
}

std::uint64_t CountPassed(const FullFilterReader& filter, const KeyList& keys) {
  std::vector<std::uint8_t> answers(keys.size());
  filter.MayContainBatch(keys, answers);
  return static_cast<std::uint64_t>(std::count(answers.begin(), answers.end(), 1));
}

std::string Percent(std::uint64_t part, std::uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2g %%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

}  // namespace

NearKeyRates MeasureNearKeyRates(const SstReader& sst, const FullFilterReader& filter) {
  NearKeyRates rates;
  std::vector<blocktable::BlockHandle> blocks;
  if (!sst.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
            blocks.push_back(h);
            return Status();
          })
           .ok()) {
    return rates;
  }
  KeyList near, users;
  ByteVector next;
  const std::size_t chosen = std::min(kNearBlocks, blocks.size());
  // An even share of the keys from each block: how often near keys pass varies along the key
  // space (with the ids' higher bytes), so the sample spans the table.
  const std::size_t per_block = (kNearKeys + chosen - 1) / std::max<std::size_t>(chosen, 1);
  for (std::size_t j = 0; j < chosen; ++j) {
    if (!BlockUserKeys(sst, blocks[j * blocks.size() / chosen], users)) break;
    ++rates.blocks_read;
    const std::size_t limit = near.size() + per_block;
    for (std::size_t i = 0; i + 1 < users.size() && near.size() < limit; ++i) {
      // Stored neighbours in either order (a reverse comparator stores keys descending).
      const bool ascending = std::lexicographical_compare(users[i].begin(), users[i].end(),
                                                          users[i + 1].begin(), users[i + 1].end());
      const ByteSpan low = ascending ? users[i] : users[i + 1];
      const ByteSpan high = ascending ? users[i + 1] : users[i];
      if (Between(low, high, next)) near.Add(ByteSpan(next.data(), next.size()));
    }
  }
  rates.near_asked = near.size();
  rates.near_passed = CountPassed(filter, near);
  const KeyList random = SyntheticAbsentKeys(kNearKeys);
  rates.random_asked = random.size();
  rates.random_passed = CountPassed(filter, random);
  return rates;
}

bool NearKeysStandOut(const NearKeyRates& r) {
  if (r.near_asked < kMinNearKeys || r.random_asked == 0) return false;
  const double nn = static_cast<double>(r.near_asked);
  const double nr = static_cast<double>(r.random_asked);
  const double pn = static_cast<double>(r.near_passed) / nn;
  const double pr = static_cast<double>(r.random_passed) / nr;
  const double near_low = pn - 4 * std::sqrt(pn * (1 - pn) / nn);
  const double random_high = pr + 4 * std::sqrt(std::max(pr, 1 / nr) * (1 - pr) / nr) + 1 / nr;
  return near_low > std::max(4 * random_high, random_high + 0.02);
}

void ReportNearKeys(const SstReader& sst, const FullFilterReader& filter, FileReport& report) {
  const NearKeyRates r = MeasureNearKeyRates(sst, filter);
  if (!NearKeysStandOut(r)) return;
  std::string message =
      "the filter answers \"may contain\" for " + Percent(r.near_passed, r.near_asked) +
      " of absent keys next to stored ones (" + std::to_string(r.near_passed) + " of " +
      std::to_string(r.near_asked) +
      ": between stored neighbours, the lower with a byte raised where they differ, from " +
      std::to_string(r.blocks_read) + " data blocks) against " +
      Percent(r.random_passed, r.random_asked) + " of random keys (" +
      std::to_string(r.random_passed) + " of " + std::to_string(r.random_asked) +
      "): reads of keys near stored ones (sequential ids) pay the higher rate";
  if (filter.kind() == FullFilterKind::kLegacyBloom) {
    message +=
        "; RocksDB's legacy Bloom filter hashes keys that differ in their last bytes to 32-bit "
        "hashes that differ in few bits";
    // Pebble writes this layout for its RocksDBv2 tables (merge operator pebble.concatenate)
    // and reads no other: the remedy is RocksDB's only.
    const std::string merger =
        sst.properties() ? sst.properties()->String("rocksdb.merge.operator").value_or("") : "";
    message += merger.starts_with("pebble.")
                   ? " (Pebble wrote this table, and its readers take no other layout)"
                   : ". `bloomcodec repair --to rocksdb-bloom` rebuilds it as FastLocalBloom (read "
                     "by RocksDB 6.6 and later)";
  }
  report.Add(Severity::kWarning, finding_kind::kNearKeys, message, sst.filter()->handle.offset);
}

}  // namespace bloomcodec::rocksdb
