// Whole Pebble tables, row-based (Pebblev1..v4) and columnar (Pebblev5..v8): footer of every
// version (v6+ footer checksum, v7 attributes), both checksum types, Snappy, Zstd and MinLZ's
// decodable forms, metaindex (row and key-value), properties, index values with block properties,
// two-level indexes, columnar data and index blocks re-laid as row blocks, range deletions, the
// Bloom filter, inspect, dump / undump and the filter rewrites of convert and repair (row and
// columnar tables); repair's reading too (RocksDBv2 and LevelDB footers, a damaged filter block
// passed over) before its rewrite, and repair's tap (pebble/table/rebuild_tap.h): a filter that a
// split verify's scan builds must make the rewrite the rewrite's own pass makes. Open either fails with a status naming
// the file and an offset inside it, or gives a table whose index walk, data blocks, probes and
// inspect never fail unsafely; every data block the index names is read and verified as the
// verify pipeline reads it. With BLOOMCODEC_PEBBLE_TABLE_FUZZER_SEEDS=DIR it writes its seeds
// (tables built by tests/pebble/table_builder.h and columnar_table_builder.h) there and exits
// instead.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "blocktable/stream.h"
#include "bloomcodec/format.h"
#include "fuzz_support.h"
#include "lsmrepair/pebble_transaction.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"
#include "pebble/table/verify.h"
#include "tests/pebble/columnar_table_builder.h"
#include "tests/pebble/table_builder.h"

using namespace bloomcodec;
using namespace bloomcodec::pebble;

namespace {

constexpr std::string_view kSource = "000010.sst";
constexpr std::size_t kMaxBlocks = 4096;

bool WriteSeeds(const std::string& dir) {
  using testing::PebbleEntry;
  std::vector<PebbleEntry> entries;
  for (int i = 0; i < 300; ++i) {
    const std::uint8_t kind = i % 11 == 0 ? testing::kDel : testing::kSet;
    entries.push_back({"key" + std::to_string(1000 + i), 9, kind, "value" + std::to_string(i)});
  }
  int n = 0;
  for (std::uint32_t version = 1; version <= 4; ++version) {
    for (auto z : {blocktable::BlockCompression::kNone, blocktable::BlockCompression::kSnappy,
                   blocktable::BlockCompression::kZstd}) {
      testing::PebbleTableSpec spec;
      spec.version = version;
      spec.compression = z;
      spec.block_size = 512;
      spec.two_level = n % 2 == 1;
      spec.block_properties = n % 3 == 0;
      spec.filter = n % 4 != 3;
      spec.checksum =
          n % 2 == 0 ? blocktable::ChecksumType::kCrc32c : blocktable::ChecksumType::kXxHash64;
      spec.range_dels = {{"key1010", "key1020"}};
      const ByteVector t = testing::BuildPebbleTable(entries, spec);
      std::ofstream out(dir + "/table_" + std::to_string(n++), std::ios::binary);
      out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.size()));
      if (!out) return false;
    }
  }
  // Value blocks and their index (convert's rewrite re-encodes the index), two-level.
  {
    testing::PebbleTableSpec spec;
    spec.version = 3;
    spec.two_level = true;
    spec.block_size = 512;
    spec.value_blocks = {"value block zero", std::string(200, 'v')};
    const ByteVector t = testing::BuildPebbleTable(entries, spec);
    std::ofstream out(dir + "/table_" + std::to_string(n++), std::ios::binary);
    out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.size()));
    if (!out) return false;
  }
  // RocksDBv2 and LevelDB tables as Pebble writes them (repair), two-level, range deletions
  // named twice.
  for (const bool leveldb : {false, true}) {
    testing::PebbleTableSpec spec;
    spec.rocksdb_v2 = true;
    spec.leveldb_footer = leveldb;
    spec.two_level = true;
    spec.block_size = 512;
    spec.compression = blocktable::BlockCompression::kSnappy;
    spec.range_dels = {{"key1010", "key1020"}};
    const ByteVector t = testing::BuildPebbleTable(entries, spec);
    std::ofstream out(dir + "/table_" + std::to_string(n++), std::ios::binary);
    out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.size()));
    if (!out) return false;
  }
  // Columnar tables: every version, compressions (MinLZ's literal form and Snappy fallback among
  // them), both key schemas, two-level indexes.
  for (std::uint32_t version = 5; version <= 8; ++version) {
    for (int variant = 0; variant < 3; ++variant) {
      testing::ColumnarTableSpec spec;
      spec.version = version;
      spec.block_size = 512;
      spec.two_level = variant == 1;
      spec.compression = variant == 2 ? blocktable::BlockCompression::kZstd
                                      : blocktable::BlockCompression::kSnappy;
      if (version >= kFooterChecksumFormat && variant == 0) spec.minlz = testing::MinLz::kLiteral;
      if (version >= kFooterChecksumFormat && variant == 2) spec.minlz = testing::MinLz::kSnappy;
      spec.range_dels = {{"key1010", "key1020"}};
      const ByteVector t = testing::BuildColumnarTable(entries, spec);
      std::ofstream out(dir + "/table_" + std::to_string(n++), std::ios::binary);
      out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.size()));
      if (!out) return false;
    }
  }
  return true;
}

// Every data block the index lists, read and verified as the scan reads it.
void WalkData(const PebbleTable& t, std::size_t size, KeyList& stored) {
  std::size_t blocks = 0;
  const Status walk = blocktable::ForEachIndexedBlock(
      t.index_layout(), [&](const blocktable::IndexEntry& e) { return t.DecodeIndexValue(e); },
      [&](const blocktable::BlockHandle& h) { return t.ReadIndexBlock(h, "index partition"); },
      [&](ByteSpan, const blocktable::BlockHandle& h) {
        if (++blocks > kMaxBlocks) return Status::Unsupported("fuzzer bound");
        BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block b, t.ReadDataBlock(h));
        BLOOMCODEC_RETURN_IF_ERROR(
            blocktable::VerifyBlock(b, blocktable::KeyOrder::kInternal).status());
        blocktable::BlockIterator it(b, blocktable::KeyOrder::kInternal);
        BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
        if (it.valid() && stored.size() < 8) stored.Add(rocksdb::UserKeyOf(it.key()));
        return Status();
      });
  if (!walk.ok() && walk.code() != StatusCode::kUnsupported) {
    fuzz::CheckNamesSourceAndOffset(walk, kSource, size);
  }
  const Status partitions =
      t.ForEachIndexPartition([](ByteSpan, const blocktable::BlockHandle&) { return Status(); });
  fuzz::CheckNamesSourceAndOffset(partitions, kSource, size);
  const Status range_dels = t.ForEachRangeDeletion([](ByteSpan, ByteSpan) { return Status(); });
  fuzz::CheckNamesSourceAndOffset(range_dels, kSource, size);
}

// The filter rewrite (convert's and repair's for row tables, repair's for columnar ones): it fails
// with a status naming the file and an offset (or Unsupported), or gives a table that opens again
// and whose filter holds every key added.
void CheckRewrite(const PebbleTable& t, std::size_t size) {
  std::uint64_t data_end = 0;
  Result<KeyList> keys = PebbleFilterKeys(t, &data_end);
  if (!keys.ok()) {
    if (keys.status().code() != StatusCode::kUnsupported) {
      fuzz::CheckNamesSourceAndOffset(keys.status(), kSource, size);
    }
    return;
  }
  const BloomPolicy policy = PolicyForRewrite(t, *keys, 5);
  // With the keys read above, as repair and convert hand them over.
  const PebbleFilterKeySet read{*keys, data_end};
  Result<PebbleRewrite> r =
      t.columnar() ? RewriteColumnarFilter(t, policy, read) : RewritePebbleFilter(t, policy, read);
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kUnsupported) {
      fuzz::CheckNamesSourceAndOffset(r.status(), kSource, size);
    }
    return;
  }
  Result<PebbleTable> again =
      PebbleTable::Open(r->bytes, "rewritten", {PebbleFooters::kPebbleAndRocksDb});
  if (!again.ok() || !again->filter().bloom || again->filter().bloom->empty()) return;
  std::vector<std::uint8_t> answers(keys->size());
  again->MayContainBatch(*keys, answers);
  for (std::uint8_t a : answers) FUZZ_CHECK(a == 1);
}

// As repair opens a table: RocksDBv2 and LevelDB footers too, a damaged filter block passed over
// (its handle kept); then its rewrite.
void CheckRepairOpen(ByteSpan file, std::size_t size) {
  Result<PebbleTable> t =
      PebbleTable::Open(file, std::string(kSource), {PebbleFooters::kPebbleAndRocksDb, true});
  if (!t.ok()) {
    if (t.status().code() != StatusCode::kUnsupported) {
      fuzz::CheckNamesSourceAndOffset(t.status(), kSource, size);
    }
    return;
  }
  FUZZ_CHECK(t->filter().damage.empty() || t->filter().kind == PebbleFilterKind::kNone);
  FUZZ_CHECK(t->filter().damage.empty() || t->filter().stored());
  KeyList stored;
  WalkData(*t, size, stored);
  CheckRewrite(*t, size);
}

// Verify's scan of the table split into tiny chunks and ranges, with a repair's tap: a filter it
// kept makes repair's rewrite what the rewrite's own pass makes, byte for byte.
void CheckTap(ByteSpan file) {
  static const std::string path =
      (std::filesystem::temp_directory_path() /
       ("bloomcodec-pebble-tap-fuzz-" + std::to_string(::getpid()) + "-000010.sst"))
          .string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.data()),
              static_cast<std::streamsize>(file.size()));
  }
  RebuildTap tap(5);
  {
    blocktable::StreamLimits limits;
    limits.chunk_keys = 1 + file.size() % 5;
    limits.min_range_bytes = 1;
    limits.max_ranges = 1u << 20;
    limits.drop_window = 1;
    blocktable::ScopedStreamLimits scoped(limits);
    VerifyPebbleTable(path, nullptr, "g", &tap);
  }
  if (tap.Find(path, file.size(), 5) == nullptr) return;
  lsmrepair::TableToRepair t;
  t.path = path;
  const auto own = lsmrepair::PebbleFilterRewrite(5)(t, file);
  const auto taken = lsmrepair::PebbleFilterRewrite(5, &tap)(t, file);
  FUZZ_CHECK(own.ok() == taken.ok());
  if (!own.ok()) return;
  FUZZ_CHECK(own->has_value() == taken->has_value());
  if (!own->has_value()) return;
  const lsmrepair::TableRewrite& a = **own;
  const lsmrepair::TableRewrite& b = **taken;
  FUZZ_CHECK(a.kept_prefix == b.kept_prefix && a.entries == b.entries && a.tail == b.tail);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* seeds = std::getenv("BLOOMCODEC_PEBBLE_TABLE_FUZZER_SEEDS")) {
    std::exit(WriteSeeds(seeds) ? 0 : 1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan file(data, size);
  CheckRepairOpen(file, size);
  Result<PebbleTable> opened = PebbleTable::Open(file, std::string(kSource));
  if (!opened.ok()) {
    if (opened.status().code() != StatusCode::kUnsupported) {
      fuzz::CheckNamesSourceAndOffset(opened.status(), kSource, size);
    }
    return 0;
  }
  const PebbleTable& t = *opened;
  KeyList stored;
  WalkData(t, size, stored);
  KeyList probes = fuzz::ProbeKeys(file);
  for (std::size_t i = 0; i < stored.size(); ++i) probes.Add(stored[i]);
  std::vector<std::uint8_t> answers(probes.size());
  t.MayContainBatch(probes, answers);
  for (std::uint8_t a : answers) FUZZ_CHECK(a <= 1);
  if (t.filter().kind == PebbleFilterKind::kNone) {
    for (std::uint8_t a : answers) FUZZ_CHECK(a == 1);
  }
  CheckRewrite(t, size);
  if (t.filter().bloom && t.comparer() == colblk::KeyComparer::kBytewise) CheckTap(file);
  Result<Document> inspected = FindFormat("pebble-table")->Inspect(file, kSource);
  fuzz::CheckNamesSourceAndOffset(inspected.status(), kSource, size);
  if (inspected.ok()) (void)inspected->dump();  // every string must be valid JSON text
  Result<Document> dumped = FindFormat("pebble-table")->Dump(file, kSource);
  fuzz::CheckNamesSourceAndOffset(dumped.status(), kSource, size);
  if (dumped.ok()) FUZZ_CHECK(FindFormat("pebble-table")->Undump(*dumped, kSource).ok());
  return 0;
}
