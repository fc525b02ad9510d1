// Whole RocksDB SST files: footer of every format_version, checksums of every type, every
// compression, metaindex, properties, index (delta-encoded, two-level), data blocks with hash
// indexes, full, partitioned and block-based (RocksDB <= 6.x) filters, range-deletion blocks
// (read by inspect). Open either fails with a status naming the file (and an
// offset inside it) or gives a reader on which walking every entry, probing, inspect and verify
// never fail unsafely, and on which batch and single probes agree. The input length's parity
// decides whether checksums are verified, so both paths are fuzzed. A table the filter rewrite
// takes (full and partitioned filters, as repair opens it: the filter's checksum unverified) is
// rewritten at 10 bits per key: the result, read back, answers "may contain" for the stored keys
// and keeps a partitioned filter partitioned; with checksums verified it must open verified.
#include <vector>

#include "bloomcodec/format.h"
#include "fuzz_support.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

using namespace bloomcodec;
using namespace bloomcodec::rocksdb;
using namespace bloomcodec::blocktable;

namespace {
constexpr std::size_t kMaxEntries = 20000;

void ExerciseRewrite(ByteSpan file, const std::string& source, bool verified,
                     const KeyList& stored) {
  SstOpenOptions options;
  options.verify_checksums = verified;
  options.verify_filter_checksum = false;  // as repair opens a table whose filter it replaces
  options.max_uncompressed_block_size = 16u << 20;
  Result<SstReader> old = SstReader::Open(file, source, options);
  if (!old.ok()) {
    fuzz::CheckNamesSourceAndOffset(old.status(), source, file.size());
    return;
  }
  if (!CheckFilterRewritable(*old).ok()) return;
  Result<SstFilterTail> tail = RewriteSstFilterTail(*old, 10.0);
  if (!tail.ok()) {
    fuzz::CheckNamesSourceAndOffset(tail.status(), source, file.size());
    return;
  }
  FUZZ_CHECK(tail->kept_prefix <= file.size());
  ByteVector out(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(tail->kept_prefix));
  out.insert(out.end(), tail->tail.begin(), tail->tail.end());
  SstOpenOptions strict;
  strict.verify_checksums = verified;
  strict.max_uncompressed_block_size = options.max_uncompressed_block_size;
  Result<SstReader> fresh = SstReader::Open(out, source, strict);
  if (verified) FUZZ_CHECK(fresh.ok());
  if (!fresh.ok()) return;
  const bool was_partitioned =
      old->filter() && old->filter()->placement == FilterPlacement::kPartitioned;
  if (was_partitioned && fresh->filter()) {
    FUZZ_CHECK(fresh->filter()->placement == FilterPlacement::kPartitioned);
  } else if (fresh->filter()) {
    // A full filter stays one, and a block-based filter becomes one.
    FUZZ_CHECK(fresh->filter()->placement == FilterPlacement::kFull);
  }
  // Unverified, a mutated index key can send a probe to another partition (RocksDB's lookup
  // too); verified, the partitions hold what the index promises.
  if (was_partitioned && !verified) return;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    Result<bool> answer = fresh->MayContain(stored[i]);
    if (answer.ok()) FUZZ_CHECK(*answer);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan file(data, size);
  const std::string source = "000012.sst";
  SstOpenOptions options;
  options.verify_checksums = (size & 1) != 0;
  // Small enough that a hostile size field cannot make the fuzzer run out of memory.
  options.max_uncompressed_block_size = 16u << 20;
  Result<SstReader> opened = SstReader::Open(file, source, options);
  if (!opened.ok()) {
    fuzz::CheckNamesSourceAndOffset(opened.status(), source, size);
    return 0;
  }
  const SstReader& sst = *opened;
  std::size_t entries = 0;
  KeyList stored;
  Status walk = sst.ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle&) {
    if (++entries > kMaxEntries) return Status::Unsupported("fuzzer bound");
    if (stored.size() < 8) stored.Add(UserKeyOf(key));
    return Status();
  });
  if (!walk.ok() && walk.code() != StatusCode::kUnsupported) {
    fuzz::CheckNamesSourceAndOffset(walk, source, size);
  }

  KeyList probes = fuzz::ProbeKeys(file);
  for (std::size_t i = 0; i < stored.size(); ++i) probes.Add(stored[i]);
  std::vector<std::uint8_t> answers(probes.size());
  const Status batch = sst.MayContainBatch(probes, answers);
  fuzz::CheckNamesSourceAndOffset(batch, source, size);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    Result<bool> single = sst.MayContain(probes[i]);
    fuzz::CheckNamesSourceAndOffset(single.status(), source, size);
    if (batch.ok() && single.ok()) FUZZ_CHECK(answers[i] == *single);
    Result<std::optional<BlockHandle>> block = sst.DataBlockFor(probes[i]);
    fuzz::CheckNamesSourceAndOffset(block.status(), source, size);
  }
  if (entries <= kMaxEntries) {
    Result<Document> inspected = FindFormat("rocksdb-sst")->Inspect(file, source);
    fuzz::CheckNamesSourceAndOffset(inspected.status(), source, size);
    if (inspected.ok()) (void)inspected->dump();  // every string must be valid JSON text
    if (walk.ok()) ExerciseRewrite(file, source, options.verify_checksums, stored);
  }
  return 0;
}
