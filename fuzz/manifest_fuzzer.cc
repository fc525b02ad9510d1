// MANIFEST files of LevelDB and RocksDB: log records (blocks, fragments, checksums, recyclable
// headers) and version edits (tags, varints, length-prefixed keys, RocksDB's custom fields),
// replayed into live tables. The first byte picks the flavor; the rest is the file. Whatever the
// bytes, ReadManifest returns (never fails, never crashes); every finding's offset lies inside
// the file; every live table has internal keys and a level in range; CRCs are recomputed by the
// fuzzer-friendly path too (the input is also read with its records' checksums made valid, so
// the edit decoder is reached).
#include <cstdint>
#include <vector>

#include "blocktable/crc32c.h"
#include "fuzz_support.h"
#include "manifest/manifest.h"

using namespace bloomcodec;
using namespace bloomcodec::manifest;

namespace {

void Check(ByteSpan file, Flavor flavor) {
  const Manifest m = ReadManifest(file, flavor, "fuzz/MANIFEST-000001");
  for (const Finding& f : m.findings) {
    if (f.offset) FUZZ_CHECK(*f.offset <= file.size());
    FUZZ_CHECK(!f.message.empty());
  }
  const int levels = flavor == Flavor::kLevelDb ? kLevelDbLevels : kMaxLevels;
  for (const ColumnFamily& c : m.column_families) {
    for (const TableMeta& t : c.tables) {
      FUZZ_CHECK(t.level >= 0 && t.level < levels);
      FUZZ_CHECK(t.smallest.size() >= 8 && t.largest.size() >= 8);
    }
  }
  FUZZ_CHECK(!m.column_families.empty() || flavor == Flavor::kRocksDb);
}

// The input's fragments with valid checksums: each header's CRC recomputed in place, so that
// random bytes get past the record layer into the edit decoder.
std::vector<std::uint8_t> WithValidCrcs(ByteSpan in) {
  std::vector<std::uint8_t> out(in.begin(), in.end());
  std::size_t pos = 0;
  while (pos + kHeaderSize <= out.size()) {
    const std::size_t left = kBlockSize - pos % kBlockSize;
    if (left < kHeaderSize) {
      pos += left;
      continue;
    }
    const std::uint8_t type = out[pos + 6];
    const std::size_t header = type >= 5 && type <= 8 ? kRecyclableHeaderSize : kHeaderSize;
    const std::size_t length = out[pos + 4] | (std::size_t{out[pos + 5]} << 8);
    if (pos + header + length > out.size() || header + length > left) break;
    const std::uint32_t crc = blocktable::MaskCrc(
        blocktable::Crc32c(ByteSpan(out.data() + pos + 6, header - 6 + length)));
    for (int i = 0; i < 4; ++i) out[pos + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    pos += header + length;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Flavor flavor = data[0] & 1 ? Flavor::kRocksDb : Flavor::kLevelDb;
  const ByteSpan file(data + 1, size - 1);
  Check(file, flavor);
  const std::vector<std::uint8_t> fixed = WithValidCrcs(file);
  Check(ByteSpan(fixed.data(), fixed.size()), flavor);
  return 0;
}
