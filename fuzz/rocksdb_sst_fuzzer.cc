// Whole RocksDB SST files: footer of every format_version, checksums of every type, every
// compression, metaindex, properties, index (delta-encoded, two-level), data blocks with hash
// indexes, full, partitioned and block-based (RocksDB <= 6.x) filters, range-deletion blocks
// (read by inspect). Open either fails with a status naming the file (and an
// offset inside it) or gives a reader on which walking every entry, probing, inspect and verify
// never fail unsafely, and on which batch and single probes agree. The input length's parity
// decides whether checksums are verified, so both paths are fuzzed.
#include <vector>

#include "bloomcodec/format.h"
#include "fuzz_support.h"
#include "rocksdb/sst/sst_reader.h"

using namespace bloomcodec;
using namespace bloomcodec::rocksdb;
using namespace bloomcodec::blocktable;

namespace {
constexpr std::size_t kMaxEntries = 20000;
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
  }
  return 0;
}
