// SST files written by the original (Debian's librocksdb 7.8.3, rocksdb::SstFileWriter) with
// random table options, read by us: the keys, the properties, the filter's answers, the block
// checksums, and a flipped byte in any block found at that block.
//
// The Debian library is built with assertions on; these properties keep to inputs it accepts:
// at least one key (SstFileWriter::Finish refuses an empty file), strictly increasing keys,
// partition_filters only with the two-level index (otherwise RocksDB silently turns it off),
// compressions from GetSupportedCompressions().
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "leveldb/random_keys.h"
#include "leveldb/rc_check.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/rocksdb_internal.h"
#include "rocksdb/sst/inspect.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/table_files.h"
#include "rocksdb/sst/verify.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "support/rc_rates.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {

using blocktable::BlockHandle;
using blocktable::ChecksumType;

namespace {

namespace fs = std::filesystem;
using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::OneIn;
using ::bloomcodec::testing::Uniform;

struct SstCase {
  int format_version = 5;
  ::rocksdb::ChecksumType checksum = ::rocksdb::kXXH3;
  ::rocksdb::CompressionType compression = ::rocksdb::kNoCompression;
  int block_size = 4096;
  int restart_interval = 16;
  int index_restart_interval = 1;
  ::rocksdb::BlockBasedTableOptions::IndexType index_type =
      ::rocksdb::BlockBasedTableOptions::kBinarySearch;
  bool partition_filters = false;
  int metadata_block_size = 4096;
  bool ribbon = false;
  double bits_per_key = 10;
  bool whole_key_filtering = true;
  bool hash_index = false;
  std::vector<std::string> keys;  // sorted, distinct
  std::vector<std::string> values;
};

std::string Describe(const SstCase& c) {
  return "fv=" + std::to_string(c.format_version) +
         " checksum=" + std::to_string(static_cast<int>(c.checksum)) +
         " compression=" + std::to_string(static_cast<int>(c.compression)) +
         " block_size=" + std::to_string(c.block_size) +
         " restart=" + std::to_string(c.restart_interval) +
         " index_restart=" + std::to_string(c.index_restart_interval) +
         " index_type=" + std::to_string(static_cast<int>(c.index_type)) +
         " partition_filters=" + std::to_string(c.partition_filters) +
         " metadata_block_size=" + std::to_string(c.metadata_block_size) +
         " ribbon=" + std::to_string(c.ribbon) + " bpk=" + std::to_string(c.bits_per_key) +
         " whole_key=" + std::to_string(c.whole_key_filtering) +
         " hash_index=" + std::to_string(c.hash_index) + " keys=" + std::to_string(c.keys.size());
}

// The options are drawn at fixed rates (each format_version in 1 case of 4, whole-key filtering
// off in 1 of 5, ...); sizes (keys, blocks, bits per key) grow with RapidCheck's case size.
rc::Gen<SstCase> GenCase() {
  return rc::gen::exec([] {
    SstCase c;
    c.format_version = *rc::gen::element(2, 3, 4, 5);
    c.checksum = *rc::gen::element(::rocksdb::kCRC32c, ::rocksdb::kxxHash, ::rocksdb::kxxHash64,
                                   ::rocksdb::kXXH3);
    const std::vector<::rocksdb::CompressionType> supported = ::rocksdb::GetSupportedCompressions();
    std::vector<::rocksdb::CompressionType> usable = {::rocksdb::kNoCompression};
    for (::rocksdb::CompressionType t :
         {::rocksdb::kSnappyCompression, ::rocksdb::kZlibCompression, ::rocksdb::kLZ4Compression,
          ::rocksdb::kLZ4HCCompression, ::rocksdb::kZSTD}) {
      if (std::find(supported.begin(), supported.end(), t) != supported.end()) usable.push_back(t);
    }
    c.compression = *rc::gen::elementOf(usable);
    c.block_size = *rc::gen::inRange(64, 8192);
    c.restart_interval = *rc::gen::inRange(1, 33);
    c.index_restart_interval = *rc::gen::inRange(1, 9);
    c.index_type = *rc::gen::element(::rocksdb::BlockBasedTableOptions::kBinarySearch,
                                     ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch,
                                     ::rocksdb::BlockBasedTableOptions::kBinarySearchWithFirstKey);
    c.partition_filters = c.index_type == ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch &&
                          *rc::gen::arbitrary<bool>();
    c.metadata_block_size = *rc::gen::inRange(64, 2048);
    c.ribbon = *rc::gen::arbitrary<bool>();
    c.bits_per_key = *rc::gen::inRange(10, 200) / 10.0;
    c.whole_key_filtering = !*OneIn(1, 5);
    c.hash_index = *rc::gen::arbitrary<bool>();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint64_t>();
    const std::size_t n = *rc::gen::inRange(1, 1500);
    std::vector<std::string> keys = ::bloomcodec::testing::RandomKeys(seed, n);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    c.keys = std::move(keys);
    ::bloomcodec::testing::SplitMix64 rng(seed ^ 0x5555);
    for (std::size_t i = 0; i < c.keys.size(); ++i) {
      std::string v(rng.Below(41), '\0');
      for (char& ch : v) ch = static_cast<char>(rng.Below(4) == 0 ? rng.Next() : 'v');
      c.values.push_back(std::move(v));
    }
    return c;
  });
}

::rocksdb::Options OptionsFor(const SstCase& c) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = static_cast<std::uint32_t>(c.format_version);
  t.checksum = c.checksum;
  t.block_size = static_cast<std::size_t>(c.block_size);
  t.block_restart_interval = c.restart_interval;
  t.index_block_restart_interval = c.index_restart_interval;
  t.index_type = c.index_type;
  t.partition_filters = c.partition_filters;
  t.metadata_block_size = static_cast<std::uint64_t>(c.metadata_block_size);
  t.filter_policy.reset(c.ribbon ? ::rocksdb::NewRibbonFilterPolicy(c.bits_per_key)
                                 : ::rocksdb::NewBloomFilterPolicy(c.bits_per_key));
  t.whole_key_filtering = c.whole_key_filtering;
  t.data_block_index_type = c.hash_index
                                ? ::rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash
                                : ::rocksdb::BlockBasedTableOptions::kDataBlockBinarySearch;
  ::rocksdb::Options o;
  o.compression = c.compression;
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

using bloomcodec::testing::TempDir;

std::string WriteWithRocksDb(const SstCase& c, const std::string& dir) {
  const std::string path = dir + "/000001.sst";
  const ::rocksdb::Options options = OptionsFor(c);
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), options);
  ::rocksdb::Status s = writer.Open(path);
  RC_ASSERT(s.ok());
  for (std::size_t i = 0; i < c.keys.size(); ++i) {
    s = writer.Put(c.keys[i], c.values[i]);
    RC_ASSERT(s.ok());
  }
  s = writer.Finish();
  RC_ASSERT(s.ok());
  return path;
}

ByteVector ReadFile(const std::string& path) {
  auto in = InputFile::Open(path);
  RC_ASSERT(in.ok());
  return ByteVector(in->bytes().begin(), in->bytes().end());
}

void CheckProperties(const SstReader& sst, const ::rocksdb::TableProperties& p) {
  RC_ASSERT(sst.properties().has_value());
  const TableProperties& ours = *sst.properties();
  auto num = [&](const char* name) { return ours.Number(name).value_or(~0ull); };
  RC_ASSERT(num("rocksdb.data.size") == p.data_size);
  RC_ASSERT(num("rocksdb.index.size") == p.index_size);
  RC_ASSERT(num("rocksdb.filter.size") == p.filter_size);
  RC_ASSERT(num("rocksdb.raw.key.size") == p.raw_key_size);
  RC_ASSERT(num("rocksdb.raw.value.size") == p.raw_value_size);
  RC_ASSERT(num("rocksdb.num.data.blocks") == p.num_data_blocks);
  RC_ASSERT(num("rocksdb.num.entries") == p.num_entries);
  RC_ASSERT(num("rocksdb.num.filter_entries") == p.num_filter_entries);
  RC_ASSERT(num("rocksdb.format.version") == p.format_version);
  RC_ASSERT(num("rocksdb.index.key.is.user.key") == p.index_key_is_user_key);
  RC_ASSERT(num("rocksdb.index.value.is.delta.encoded") == p.index_value_is_delta_encoded);
  RC_ASSERT(ours.Number("rocksdb.index.partitions").value_or(0) == p.index_partitions);
  RC_ASSERT(ours.Number("rocksdb.top-level.index.size").value_or(0) == p.top_level_index_size);
  RC_ASSERT(ours.String("rocksdb.filter.policy").value_or("") == p.filter_policy_name);
  RC_ASSERT(ours.String("rocksdb.compression").value_or("") == p.compression_name);
  RC_ASSERT(ours.String("rocksdb.comparator").value_or("") == p.comparator_name);
  // User-collected properties come back byte for byte.
  for (const auto& [name, value] : p.user_collected_properties) {
    const TableProperty* mine = ours.Find(name);
    RC_ASSERT(mine != nullptr);
    RC_ASSERT(std::string(reinterpret_cast<const char*>(mine->raw.data()), mine->raw.size()) ==
              value);
  }
  for (const TableProperty& prop : ours.entries) RC_ASSERT(!prop.malformed);
}

// Our answer for each probe against RocksDB's FilterBitsReader on the filter block (or, for
// partitioned filters, on the partition we chose for the probe).
void CheckFilterAnswers(const SstReader& sst, const SstCase& c,
                        const std::vector<std::string>& probes) {
  std::unique_ptr<const ::rocksdb::FilterPolicy> policy(
      c.ribbon ? ::rocksdb::NewRibbonFilterPolicy(c.bits_per_key)
               : ::rocksdb::NewBloomFilterPolicy(c.bits_per_key));
  for (const std::string& probe : probes) {
    const ByteSpan key = AsBytes(probe);
    auto ours = sst.MayContain(key);
    RC_ASSERT(ours.ok());
    if (!c.whole_key_filtering) {
      RC_ASSERT(*ours);
      continue;
    }
    auto handle = sst.FilterBlockFor(key);
    RC_ASSERT(handle.ok());
    const ByteSpan block = sst.file().subspan(handle->offset, handle->size);
    std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(
        ::rocksdb::Slice(reinterpret_cast<const char*>(block.data()), block.size())));
    RC_ASSERT(*ours == reader->MayMatch(::rocksdb::Slice(probe)));
  }
}

// The read path itself: the file ingested into an empty database, each probe asked with
// DB::Get, and the statistics tickers say whether the filter was consulted and what it answered
// (BLOOM_FILTER_USEFUL: "absent"; BLOOM_FILTER_FULL_POSITIVE: "may match"). Where it was
// consulted, our answer must be the same; this checks the partition a partitioned filter picks.
void CheckAgainstDbGet(const SstCase& c, const std::string& sst_path, const SstReader& sst,
                       const std::vector<std::string>& probes) {
  TempDir db_dir;
  RC_ASSERT(!db_dir.path().empty());
  ::rocksdb::Options options = OptionsFor(c);
  options.create_if_missing = true;
  options.statistics = ::rocksdb::CreateDBStatistics();
  ::rocksdb::DB* raw = nullptr;
  RC_ASSERT(::rocksdb::DB::Open(options, db_dir.path() + "/db", &raw).ok());
  std::unique_ptr<::rocksdb::DB> db(raw);
  ::rocksdb::IngestExternalFileOptions ingest;
  RC_ASSERT(db->IngestExternalFile({sst_path}, ingest).ok());
  std::size_t consulted = 0;
  for (const std::string& probe : probes) {
    const std::uint64_t useful = options.statistics->getTickerCount(::rocksdb::BLOOM_FILTER_USEFUL);
    const std::uint64_t positive =
        options.statistics->getTickerCount(::rocksdb::BLOOM_FILTER_FULL_POSITIVE);
    std::string value;
    const ::rocksdb::Status s = db->Get(::rocksdb::ReadOptions(), probe, &value);
    RC_ASSERT(s.ok() || s.IsNotFound());
    const bool said_absent =
        options.statistics->getTickerCount(::rocksdb::BLOOM_FILTER_USEFUL) > useful;
    const bool said_maybe =
        options.statistics->getTickerCount(::rocksdb::BLOOM_FILTER_FULL_POSITIVE) > positive;
    if (!said_absent && !said_maybe) continue;  // outside the file's key range: not asked
    ++consulted;
    auto ours = sst.MayContain(AsBytes(probe));
    RC_ASSERT(ours.ok());
    RC_ASSERT(*ours == said_maybe);
  }
  RC_ASSERT(consulted > 0);
  RC_ASSERT(db->Close().ok());
}

// The blocks a flipped byte must be found in: every data block, the index (and its partitions),
// the metaindex, the meta blocks it names, filter partitions.
std::vector<BlockHandle> AllBlocks(const SstReader& sst) {
  std::vector<BlockHandle> blocks = {sst.footer().index_handle, sst.footer().metaindex_handle};
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    if (e.handle) blocks.push_back(*e.handle);
  }
  Status s = sst.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    blocks.push_back(h);
    return Status();
  });
  RC_ASSERT(s.ok());
  s = sst.ForEachIndexPartition([&](ByteSpan, const BlockHandle& h) {
    blocks.push_back(h);
    return Status();
  });
  RC_ASSERT(s.ok());
  return blocks;
}

TEST(SstDifferential, FilesWrittenByRocksDbReadAsRocksDbReadsThem) {
  CheckProperty(60, 100, [] {
    const SstCase c = *GenCase();
    RC_TAG("format_version " + std::to_string(c.format_version));
    RC_LOG() << Describe(c) << "\n";
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const std::string path = WriteWithRocksDb(c, dir.path());
    const ByteVector file = ReadFile(path);

    // The original's view of the same file.
    ::rocksdb::Options options = OptionsFor(c);
    ::rocksdb::SstFileReader original(options);
    RC_ASSERT(original.Open(path).ok());
    RC_ASSERT(original.VerifyChecksum().ok());
    std::vector<std::string> original_keys;
    {
      std::unique_ptr<::rocksdb::Iterator> it(original.NewIterator(::rocksdb::ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        original_keys.push_back(it->key().ToString());
      }
      RC_ASSERT(it->status().ok());
    }
    RC_ASSERT(original_keys == c.keys);

    SstOpenOptions open;
    open.verify_checksums = true;
    auto sst = SstReader::Open(file, path, open);
    RC_ASSERT(sst.ok());
    RC_ASSERT(sst->footer().format_version == static_cast<std::uint32_t>(c.format_version));
    RC_ASSERT(static_cast<int>(sst->footer().checksum) == static_cast<int>(c.checksum));
    std::vector<std::string> our_keys;
    Status s = sst->ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle&) {
      const ByteSpan user = UserKeyOf(key);
      our_keys.emplace_back(reinterpret_cast<const char*>(user.data()), user.size());
      return Status();
    });
    RC_ASSERT(s.ok());
    RC_ASSERT(our_keys == original_keys);
    CheckProperties(*sst, *original.GetTableProperties());

    // Without whole-key filtering and without a prefix extractor there is nothing to add to a
    // filter: RocksDB writes none.
    RC_ASSERT(sst->filter().has_value() == c.whole_key_filtering);
    if (!c.whole_key_filtering) return;
    RC_ASSERT((sst->filter()->placement == FilterPlacement::kPartitioned) == c.partition_filters);
    std::vector<std::string> probes = c.keys;
    const std::vector<std::string> absent =
        ::bloomcodec::testing::RandomKeys(c.keys.size() * 7 + 1, 300);
    probes.insert(probes.end(), absent.begin(), absent.end());
    CheckFilterAnswers(*sst, c, probes);

    CheckAgainstDbGet(c, path, *sst, probes);

    const FileReport report = VerifySst(path, nullptr, dir.path());
    for (const Finding& f : report.findings) RC_ASSERT(f.severity != Severity::kError);
    RC_ASSERT(report.false_negative_count == 0u);
  });
}

TEST(SstDifferential, AFlippedByteInAnyBlockIsReportedAtThatBlock) {
  CheckProperty(40, 60, [] {
    const SstCase c = *GenCase();
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const std::string path = WriteWithRocksDb(c, dir.path());
    ByteVector file = ReadFile(path);
    auto sst = SstReader::Open(file, path);
    RC_ASSERT(sst.ok());
    const std::vector<BlockHandle> blocks = AllBlocks(*sst);
    const BlockHandle block = *rc::gen::elementOf(blocks);
    // Any byte of the block or its trailer: the trailer (compression type, then the checksum) in
    // 1 case of 4, otherwise any byte of the block, uniformly (its last 40% in 3 cases of 10).
    const bool in_trailer = block.size == 0 || *OneIn(1, 4);
    const std::uint64_t within = in_trailer ? block.size + *Uniform<std::uint64_t>(0, 5)
                                            : *Uniform<std::uint64_t>(0, block.size);
    const std::uint64_t at = block.offset + within;
    RC_CLASSIFY(c.format_version == 5, "format_version 5");
    RC_TAG(within == block.size            ? "trailer: compression type"
           : within > block.size           ? "trailer: checksum"
           : 10 * within >= 6 * block.size ? "block: its last 40%"
                                           : "block: its first 60%");
    const std::uint8_t mask = static_cast<std::uint8_t>(*Uniform(1, 256));
    file[at] ^= mask;
    const std::string damaged = dir.path() + "/000002.sst";
    {
      std::ofstream out(damaged, std::ios::binary);
      out.write(reinterpret_cast<const char*>(file.data()),
                static_cast<std::streamsize>(file.size()));
    }
    const FileReport report = VerifySst(damaged, nullptr, dir.path());
    RC_ASSERT(report.worst() == Severity::kError);
    RC_ASSERT(!report.findings.empty());
    const Finding& f = report.findings.front();
    RC_LOG() << "flipped byte " << at << " in block " << block.offset << "+" << block.size << ": "
             << f.kind << " " << f.message << "\n";
    RC_ASSERT(f.kind == std::string(finding_kind::kStructure));
    RC_ASSERT(f.offset.has_value());
    RC_ASSERT(*f.offset >= block.offset);
    RC_ASSERT(*f.offset < block.offset + block.size + 5);
  });
}

// Our writer: RocksDB opens what we write, iterates exactly our keys, verifies every checksum,
// reads our properties; and our filter block is byte-identical to the one SstFileWriter writes
// for the same keys and policy.
TEST(SstDifferential, FilesWeWriteAreReadByRocksDbAndCarryItsFilterBytes) {
  CheckProperty(40, 100, [] {
    SstCase c = *GenCase();
    c.format_version = 5;
    c.index_type = ::rocksdb::BlockBasedTableOptions::kBinarySearch;
    c.partition_filters = false;
    c.whole_key_filtering = true;
    c.compression = ::rocksdb::kNoCompression;
    c.checksum = *rc::gen::element(::rocksdb::kCRC32c, ::rocksdb::kxxHash, ::rocksdb::kxxHash64,
                                   ::rocksdb::kXXH3);
    RC_LOG() << Describe(c) << "\n";
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    KeyList keys, values;
    for (std::size_t i = 0; i < c.keys.size(); ++i) {
      keys.Add(c.keys[i]);
      values.Add(c.values[i]);
    }
    SstWriteOptions ours;
    ours.bits_per_key = c.bits_per_key;
    ours.filter = c.ribbon ? FilterEncoding::kRibbon : FilterEncoding::kFastLocalBloom;
    ours.block_size = static_cast<std::size_t>(c.block_size);
    ours.restart_interval = c.restart_interval;
    ours.checksum = static_cast<ChecksumType>(c.checksum);
    auto written = WriteSst(keys, &values, ours);
    RC_ASSERT(written.ok());
    const std::string path = dir.path() + "/000007.sst";
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(written->data()),
                static_cast<std::streamsize>(written->size()));
    }
    ::rocksdb::SstFileReader reader(OptionsFor(c));
    RC_ASSERT(reader.Open(path).ok());
    RC_ASSERT(reader.VerifyChecksum().ok());
    std::vector<std::string> read_keys, read_values;
    {
      std::unique_ptr<::rocksdb::Iterator> it(reader.NewIterator(::rocksdb::ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        read_keys.push_back(it->key().ToString());
        read_values.push_back(it->value().ToString());
      }
      RC_ASSERT(it->status().ok());
    }
    RC_ASSERT(read_keys == c.keys);
    RC_ASSERT(read_values == c.values);
    const auto props = reader.GetTableProperties();
    RC_ASSERT(props->num_entries == c.keys.size());
    RC_ASSERT(props->filter_policy_name == std::string(c.ribbon ? "ribbonfilter" : "bloomfilter"));

    // The original's file for the same keys: its filter block equals ours.
    const std::string theirs_path = WriteWithRocksDb(c, dir.path());
    const ByteVector theirs_bytes = ReadFile(theirs_path);
    auto theirs = SstReader::Open(theirs_bytes, theirs_path);
    auto mine = SstReader::Open(*written, path);
    RC_ASSERT(theirs.ok() && mine.ok());
    RC_ASSERT(theirs->filter().has_value() && mine->filter().has_value());
    const ByteSpan a = theirs->filter()->contents.bytes();
    const ByteSpan b = mine->filter()->contents.bytes();
    RC_ASSERT(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  });
}

ByteVector MetaBlocksRegion(const ByteVector& file, const SstReader& sst);

// `bytes` written as `path` and read back by RocksDB's SstFileReader under `target`'s options:
// every checksum verified, its keys in order, the filter size its properties record.
struct RocksDbReadBack {
  std::vector<std::string> keys;
  std::uint64_t filter_size = 0;
};
RocksDbReadBack ReadBackWithRocksDb(const ByteVector& bytes, const std::string& path,
                                    const SstCase& target) {
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  ::rocksdb::SstFileReader reader(OptionsFor(target));
  RC_ASSERT(reader.Open(path).ok());
  RC_ASSERT(reader.VerifyChecksum().ok());
  RocksDbReadBack back;
  std::unique_ptr<::rocksdb::Iterator> it(reader.NewIterator(::rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) back.keys.push_back(it->key().ToString());
  RC_ASSERT(it->status().ok());
  back.filter_size = reader.GetTableProperties()->filter_size;
  return back;
}

// `sst` rewritten by RewriteSstFilter at `bits` (nullopt: without a filter), written as
// DIR/000009.sst and read back by RocksDB under `target`'s options, which must find `keys`.
struct RewrittenSst {
  ByteVector bytes;
  std::string path;
  std::uint64_t rocksdb_filter_size = 0;  // what RocksDB reads from its properties
};
RewrittenSst RewriteAndReadBack(const SstReader& sst, std::optional<double> bits,
                                const SstCase& target, const std::vector<std::string>& keys,
                                const std::string& dir) {
  auto rewritten = RewriteSstFilter(sst, bits);
  RC_ASSERT(rewritten.ok());
  RewrittenSst r{std::move(*rewritten), dir + "/000009.sst", 0};
  const RocksDbReadBack back = ReadBackWithRocksDb(r.bytes, r.path, target);
  RC_ASSERT(back.keys == keys);
  r.rocksdb_filter_size = back.filter_size;
  return r;
}

// Rewriting the filter of an SST RocksDB wrote (any index, compression, checksum, format_version;
// a full filter): RocksDB reads the result, and its filter block is the one RocksDB writes for
// the same keys with the new bits_per_key; under a two-level index, so is everything from the
// filter to the properties (the index partitions moved, the top level re-encoded). Removing the
// filter leaves a table RocksDB reads.
TEST(SstDifferential, RewrittenFiltersAreTheOnesRocksDbWritesAndItReadsTheFile) {
  CheckProperty(40, 100, [] {
    SstCase c = *GenCase();
    c.partition_filters = false;
    RC_CLASSIFY(c.index_type == ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch,
                "two-level index");
    c.whole_key_filtering = true;
    RC_LOG() << Describe(c) << "\n";
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const std::string original_path = WriteWithRocksDb(c, dir.path());
    const ByteVector original = ReadFile(original_path);
    auto sst = SstReader::Open(original, original_path);
    RC_ASSERT(sst.ok());
    const bool remove = *OneIn(1, 5);
    RC_TAG(remove ? "filter removed" : "filter rewritten");
    RC_CLASSIFY(c.format_version == 5, "format_version 5");
    SstCase target = c;
    target.bits_per_key = *rc::gen::inRange(10, 200) / 10.0;
    TempDir out_dir;
    const RewrittenSst rewritten =
        RewriteAndReadBack(*sst, remove ? std::nullopt : std::optional<double>(target.bits_per_key),
                           target, c.keys, out_dir.path());
    auto mine = SstReader::Open(rewritten.bytes, rewritten.path);
    RC_ASSERT(mine.ok());
    RC_ASSERT(mine->filter().has_value() == !remove);
    RC_ASSERT(rewritten.rocksdb_filter_size == (remove ? 0 : mine->filter()->handle.size));
    if (remove) return;
    const std::string theirs_path = WriteWithRocksDb(target, out_dir.path());
    const ByteVector theirs_bytes = ReadFile(theirs_path);
    auto theirs = SstReader::Open(theirs_bytes, theirs_path);
    RC_ASSERT(theirs.ok() && theirs->filter().has_value());
    const ByteSpan a = theirs->filter()->contents.bytes();
    const ByteSpan b = mine->filter()->contents.bytes();
    RC_ASSERT(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    if (c.index_type == ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch) {
      RC_ASSERT(MetaBlocksRegion(rewritten.bytes, *mine) ==
                MetaBlocksRegion(theirs_bytes, *theirs));
    }
  });
}

// A block-based filter (our writer's, as RocksDB 6.x wrote them; 7.x writes none) rebuilt as the
// full filter RocksDB 7.8 writes for the same keys and format_version: 7.8 reads the table back
// with its checksums, every key, and a filter that has them all.
TEST(SstDifferential, BlockBasedFiltersAreRebuiltAsTheFullFiltersRocksDbWrites) {
  CheckProperty(20, 40, [] {
    SstCase c = *GenCase();
    c.index_type = ::rocksdb::BlockBasedTableOptions::kBinarySearch;
    c.partition_filters = false;
    c.whole_key_filtering = true;
    c.ribbon = false;
    c.compression = ::rocksdb::kNoCompression;
    c.format_version = *rc::gen::element(2, 3, 4, 5);
    RC_LOG() << Describe(c) << "\n";
    KeyList keys;
    for (const std::string& k : c.keys) keys.Add(AsBytes(std::string_view(k)));
    SstWriteOptions options;
    options.block_based_filter = true;
    options.bits_per_key = 10;
    options.checksum = blocktable::ChecksumType::kCrc32c;
    options.format_version = static_cast<std::uint32_t>(c.format_version);
    const auto original = WriteSst(keys, nullptr, options);
    RC_ASSERT(original.ok());
    auto sst = SstReader::Open(*original, "block-based.sst");
    RC_ASSERT(sst.ok() && sst->filter().has_value());
    RC_ASSERT(sst->filter()->placement == FilterPlacement::kBlockBased);
    SstCase target = c;
    target.checksum = ::rocksdb::kCRC32c;
    target.bits_per_key = *rc::gen::inRange(10, 200) / 10.0;
    TempDir out_dir;
    const RewrittenSst rewritten =
        RewriteAndReadBack(*sst, target.bits_per_key, target, c.keys, out_dir.path());
    auto mine = SstReader::Open(rewritten.bytes, rewritten.path);
    RC_ASSERT(mine.ok() && mine->filter().has_value());
    RC_ASSERT(mine->filter()->placement == FilterPlacement::kFull);
    RC_ASSERT(rewritten.rocksdb_filter_size == mine->filter()->handle.size);
    const std::string theirs_path = WriteWithRocksDb(target, out_dir.path());
    const ByteVector theirs_bytes = ReadFile(theirs_path);
    auto theirs = SstReader::Open(theirs_bytes, theirs_path);
    RC_ASSERT(theirs.ok() && theirs->filter().has_value());
    const ByteSpan a = theirs->filter()->contents.bytes();
    const ByteSpan b = mine->filter()->contents.bytes();
    RC_ASSERT(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  });
}

// The bytes of `file` between its data blocks' end and its properties block: a partitioned
// table's filter partitions, their index, the index partitions and the index's top level.
ByteVector MetaBlocksRegion(const ByteVector& file, const SstReader& sst) {
  std::uint64_t data_end = 0;
  RC_ASSERT(sst.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                 data_end = std::max(data_end, h.offset + h.size + blocktable::kBlockTrailerSize);
                 return Status();
               })
                .ok());
  RC_ASSERT(sst.properties_handle().has_value());
  return ByteVector(file.begin() + static_cast<std::ptrdiff_t>(data_end),
                    file.begin() + static_cast<std::ptrdiff_t>(sst.properties_handle()->offset));
}

// A two-level index's partitions: each one's key in the top level and its size.
std::vector<std::pair<ByteVector, std::uint64_t>> IndexPartitionCuts(const SstReader& sst) {
  std::vector<std::pair<ByteVector, std::uint64_t>> cuts;
  RC_ASSERT(sst.ForEachIndexPartition([&](ByteSpan key, const blocktable::BlockHandle& h) {
                 cuts.emplace_back(ByteVector(key.begin(), key.end()), h.size);
                 return Status();
               })
                .ok());
  return cuts;
}

// Rebuilding the partitioned filter of an SST RocksDB wrote (partition_filters, two-level index,
// any format_version, compression, checksum, restart intervals, metadata_block_size): at its own
// policy the file comes back byte for byte; at other bits per key RocksDB reads the result, and
// where RocksDB's own table for the new policy cut the same index partitions (it cuts earlier
// where the filter asks), everything between the data blocks and the properties is its bytes.
TEST(SstDifferential, RebuiltPartitionedFiltersAreTheOnesRocksDbWrites) {
  CheckProperty(30, 60, [] {
    SstCase c = *GenCase();
    c.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.partition_filters = true;
    c.whole_key_filtering = true;
    RC_LOG() << Describe(c) << "\n";
    TempDir dir;
    const std::string original_path = WriteWithRocksDb(c, dir.path());
    const ByteVector original = ReadFile(original_path);
    auto sst = SstReader::Open(original, original_path);
    RC_ASSERT(sst.ok() && sst->filter().has_value());
    RC_ASSERT(sst->filter()->placement == FilterPlacement::kPartitioned);
    auto same = RewriteSstFilter(*sst, c.bits_per_key);
    RC_ASSERT(same.ok());
    RC_ASSERT(*same == original);

    SstCase target = c;
    target.bits_per_key = *rc::gen::inRange(10, 200) / 10.0;
    TempDir out_dir;
    const RewrittenSst rewritten =
        RewriteAndReadBack(*sst, target.bits_per_key, target, c.keys, out_dir.path());
    auto mine = SstReader::Open(rewritten.bytes, rewritten.path);
    RC_ASSERT(mine.ok() && mine->filter().has_value());
    RC_ASSERT(mine->filter()->placement == FilterPlacement::kPartitioned);
    RC_ASSERT(rewritten.rocksdb_filter_size == mine->properties()->Number("rocksdb.filter.size"));
    for (const std::string& k : c.keys) {
      auto answer =
          mine->MayContain(ByteSpan(reinterpret_cast<const std::uint8_t*>(k.data()), k.size()));
      RC_ASSERT(answer.ok() && *answer);
    }
    const std::string theirs_path = WriteWithRocksDb(target, out_dir.path());
    const ByteVector theirs_bytes = ReadFile(theirs_path);
    auto theirs = SstReader::Open(theirs_bytes, theirs_path);
    RC_ASSERT(theirs.ok());
    const bool same_cuts = IndexPartitionCuts(*theirs) == IndexPartitionCuts(*sst);
    RC_CLASSIFY(same_cuts, "RocksDB cut the same index partitions");
    if (!same_cuts) return;
    RC_ASSERT(MetaBlocksRegion(rewritten.bytes, *mine) == MetaBlocksRegion(theirs_bytes, *theirs));
    for (const char* name : {"rocksdb.filter.size", "rocksdb.num.filter_entries",
                             "rocksdb.index.size", "rocksdb.top-level.index.size"}) {
      RC_ASSERT(mine->properties()->Number(name) == theirs->properties()->Number(name));
    }
  });
}

// Concatenation: SstFileWriter::Merge only stores the operand, but the options of a table with
// merges name an operator, as a database's would.
class AppendOperator : public ::rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const ::rocksdb::Slice&, const ::rocksdb::Slice* existing,
             const ::rocksdb::Slice& value, std::string* out, ::rocksdb::Logger*) const override {
    *out = (existing ? existing->ToString() : std::string()) + value.ToString();
    return true;
  }
  const char* Name() const override { return "bloomcodec.Append"; }
};

struct MixedTable {
  std::string path;
  std::size_t puts = 0, deletes = 0, merges = 0, range_deletions = 0;
};

// Puts, point deletions, merges and range deletions in one SST, as a flush of a database that
// saw all four writes: RocksDB counts every one in rocksdb.num.entries, the range deletions in
// their own meta block.
MixedTable WriteMixedTable(const SstCase& c, const std::string& dir, std::uint64_t seed) {
  MixedTable t;
  t.path = dir + "/000003.sst";
  ::rocksdb::Options options = OptionsFor(c);
  options.merge_operator = std::make_shared<AppendOperator>();
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), options);
  RC_ASSERT(writer.Open(t.path).ok());
  ::bloomcodec::testing::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < c.keys.size(); ++i) {
    switch (rng.Below(4)) {
      case 0:
        RC_ASSERT(writer.Delete(c.keys[i]).ok());
        ++t.deletes;
        break;
      case 1:
        RC_ASSERT(writer.Merge(c.keys[i], c.values[i]).ok());
        ++t.merges;
        break;
      default: RC_ASSERT(writer.Put(c.keys[i], c.values[i]).ok()); ++t.puts;
    }
  }
  const std::size_t ranges = rng.Below(30);
  for (std::size_t i = 0; i < ranges && c.keys.size() >= 2; ++i) {
    std::size_t a = rng.Below(c.keys.size()), b = rng.Below(c.keys.size());
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    RC_ASSERT(writer.DeleteRange(c.keys[a], c.keys[b]).ok());
    ++t.range_deletions;
  }
  RC_ASSERT(writer.Finish().ok());
  return t;
}

// The file offset of a property's value (the properties block is stored uncompressed).
std::uint64_t PropertyValueAt(const SstReader& sst, std::string_view name) {
  auto block = sst.ReadBlock(*sst.properties_handle(), "properties block");
  RC_ASSERT(block.ok());
  RC_ASSERT(block->contents().compression() == blocktable::BlockCompression::kNone);
  auto props = ParseProperties(*block);
  RC_ASSERT(props.ok());
  const TableProperty* p = props->Find(name);
  RC_ASSERT(p != nullptr);
  return block->contents().file_offset() +
         static_cast<std::uint64_t>(p->raw.data() - block->contents().bytes().data());
}

TEST(SstDifferential, DeletionsMergesAndRangeDeletionsAreCountedAsRocksDbCountsThem) {
  CheckProperty(30, 60, [] {
    SstCase c = *GenCase();
    c.checksum = ::rocksdb::kNoChecksum;  // so that a changed count is not a checksum error
    RC_LOG() << Describe(c) << "\n";
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const MixedTable t = WriteMixedTable(c, dir.path(), *rc::gen::arbitrary<std::uint64_t>());
    ::rocksdb::Options options = OptionsFor(c);
    options.merge_operator = std::make_shared<AppendOperator>();
    ::rocksdb::SstFileReader original(options);
    RC_ASSERT(original.Open(t.path).ok());
    const auto props = original.GetTableProperties();
    RC_ASSERT(props->num_entries == c.keys.size() + t.range_deletions);
    RC_ASSERT(props->num_range_deletions == t.range_deletions);

    const FileReport report = VerifySst(t.path, nullptr, dir.path());
    for (const Finding& f : report.findings) {
      RC_LOG() << f.kind << " " << f.message << "\n";
      RC_ASSERT(f.severity != Severity::kError);
    }
    RC_ASSERT(report.false_negative_count == 0u);

    ByteVector file = ReadFile(t.path);
    auto doc = InspectSst(file, t.path);
    RC_ASSERT(doc.ok());
    RC_ASSERT((*doc)["range_deletions"]["count"].get<std::uint64_t>() == t.range_deletions);
    RC_ASSERT((*doc)["range_deletions"]["listed"].size() == t.range_deletions);

    // A count one off, in any of the four properties, is a structure finding at the properties.
    auto sst = SstReader::Open(file, t.path);
    RC_ASSERT(sst.ok());
    const std::string name =
        *rc::gen::element<std::string>("rocksdb.num.entries", "rocksdb.num.range-deletions",
                                       "rocksdb.merge.operands", "rocksdb.deleted.keys");
    RC_TAG(name, t.range_deletions > 0 ? "range deletions" : "no range deletion");
    RC_CLASSIFY(c.format_version == 5, "format_version 5");
    const std::uint64_t at = PropertyValueAt(*sst, name);
    // One more in the low 7 bits of the first varint byte: still a varint, one above. Every one
    // of the four is then wrong (deleted.keys may lie between the point deletions and those plus
    // the range deletions, and 7.8 writes the upper end).
    RC_PRE((file[at] & 0x7f) != 0x7f);
    ++file[at];
    const std::string damaged = dir.path() + "/000004.sst";
    {
      std::ofstream out(damaged, std::ios::binary);
      out.write(reinterpret_cast<const char*>(file.data()),
                static_cast<std::streamsize>(file.size()));
    }
    const FileReport bad = VerifySst(damaged, nullptr, dir.path());
    RC_ASSERT(!bad.findings.empty());
    const Finding& f = bad.findings.front();
    RC_LOG() << name << ": " << f.kind << " " << f.message << "\n";
    RC_ASSERT(f.kind == std::string(finding_kind::kStructure));
    RC_ASSERT(f.message.find(name) != std::string::npos);
    RC_ASSERT(f.offset == std::optional<std::uint64_t>(sst->properties_handle()->offset));
  });
}

// Block-based filters, what RocksDB <= 6.x wrote by default, written by our writer from the
// specification (7.x cannot write them: NewBloomFilterPolicy ignores use_block_based_builder).
// RocksDB 7.8 opens the tables, iterates our keys and verifies every checksum (it ignores the
// filter, as 7.x does); we find the filter, answer every stored key "may contain" through the
// filter of its data block, and verify the table healthy. The hash is RocksDB's BloomHash, which
// 7.8 still uses in its legacy full filter (format_version < 5): the differential tests of
// rocksdb-bloom-legacy hold our LegacyBloomHash against it.
TEST(SstDifferential, BlockBasedFiltersOfRocksDb6AreProbedThroughTheirDataBlocks) {
  CheckProperty(30, 60, [] {
    SstCase c = *GenCase();
    const std::uint32_t fv = *rc::gen::element<std::uint32_t>(0, 1, 2, 3, 4, 5);
    RC_TAG("format_version " + std::to_string(fv));
    SstWriteOptions ours;
    ours.block_based_filter = true;
    ours.format_version = fv;
    ours.bits_per_key = *Uniform(1, 25);
    ours.block_size = static_cast<std::size_t>(c.block_size);
    ours.restart_interval = c.restart_interval;
    ours.checksum = fv == 0 ? ChecksumType::kCrc32c
                            : *rc::gen::element(ChecksumType::kCrc32c, ChecksumType::kXxHash,
                                                ChecksumType::kXxHash64, ChecksumType::kXxh3);
    RC_LOG() << "fv=" << fv << " bpk=" << ours.bits_per_key << " keys=" << c.keys.size() << "\n";
    KeyList keys, values;
    for (std::size_t i = 0; i < c.keys.size(); ++i) {
      keys.Add(c.keys[i]);
      values.Add(c.values[i]);
    }
    auto written = WriteSst(keys, &values, ours);
    RC_ASSERT(written.ok());
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const std::string path = dir.path() + "/h.block-bloom.sst";
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(written->data()),
                static_cast<std::streamsize>(written->size()));
    }
    ::rocksdb::Options options = OptionsFor(c);
    ::rocksdb::SstFileReader reader(options);
    RC_ASSERT(reader.Open(path).ok());
    RC_ASSERT(reader.VerifyChecksum().ok());
    std::vector<std::string> read_keys;
    {
      std::unique_ptr<::rocksdb::Iterator> it(reader.NewIterator(::rocksdb::ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) read_keys.push_back(it->key().ToString());
      RC_ASSERT(it->status().ok());
    }
    RC_ASSERT(read_keys == c.keys);

    auto sst = SstReader::Open(*written, path);
    RC_ASSERT(sst.ok());
    RC_ASSERT(sst->footer().has_leveldb_magic() == (fv == 0));
    RC_ASSERT(sst->filter().has_value());
    RC_ASSERT(sst->filter()->placement == FilterPlacement::kBlockBased);
    for (const std::string& k : c.keys) {
      auto maybe = sst->MayContain(AsBytes(k));
      RC_ASSERT(maybe.ok() && *maybe);
    }
    // Absent keys: most are excluded (a filter that answers 1 for all would pass the above).
    const std::vector<std::string> absent =
        ::bloomcodec::testing::RandomKeys(c.keys.size() + 3, 400);
    std::size_t excluded = 0, asked = 0;
    for (const std::string& k : absent) {
      if (std::binary_search(c.keys.begin(), c.keys.end(), k)) continue;
      auto block = sst->DataBlockFor(AsBytes(k));
      RC_ASSERT(block.ok());
      if (!*block) continue;  // past the last key: the filter is not asked
      ++asked;
      auto maybe = sst->MayContain(AsBytes(k));
      RC_ASSERT(maybe.ok());
      if (!*maybe) ++excluded;
    }
    if (asked >= 100 && ours.bits_per_key >= 8) RC_ASSERT(excluded * 2 > asked);

    const FileReport report = VerifySst(path, nullptr, dir.path());
    for (const Finding& f : report.findings) {
      RC_LOG() << f.kind << " " << f.message << "\n";
      RC_ASSERT(f.severity != Severity::kError);
      RC_ASSERT(f.kind != std::string(finding_kind::kUnsupported));
      RC_ASSERT(f.kind != std::string(finding_kind::kNoFilter));
    }
    RC_ASSERT(report.keys_checked == c.keys.size());
    RC_ASSERT(report.fill.has_value() && report.fill->fp_rate < 1.0);
    auto doc = InspectSst(*written, path);
    RC_ASSERT(doc.ok());
    RC_ASSERT((*doc)["filter"]["placement"] == "block-based");
    RC_ASSERT((*doc)["filter"]["block_based"]["base_lg"] == 11);
  });
}

// A block-based filter block whose offset array points past its end is a structure finding at
// the filter block (checksums off, so that the layout itself is what is judged).
TEST(SstDifferential, ADamagedBlockBasedFilterLayoutIsAStructureFinding) {
  KeyList keys;
  for (int i = 0; i < 500; ++i) keys.Add("key" + std::to_string(100000 + i));
  SstWriteOptions ours;
  ours.block_based_filter = true;
  ours.checksum = ChecksumType::kNone;
  auto written = WriteSst(keys, nullptr, ours);
  ASSERT_TRUE(written.ok());
  auto sst = SstReader::Open(*written, "t.sst");
  ASSERT_TRUE(sst.ok());
  const BlockHandle h = sst->filter()->handle;
  ByteVector file = *written;
  // The array offset: the 4 bytes before base_lg.
  for (int i = 0; i < 4; ++i) file[h.offset + h.size - 5 + i] = 0xff;
  TempDir dir;
  const std::string path = dir.path() + "/t.sst";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.data()),
              static_cast<std::streamsize>(file.size()));
  }
  const FileReport report = VerifySst(path, nullptr, dir.path());
  ASSERT_FALSE(report.findings.empty());
  const Finding& f = report.findings.front();
  EXPECT_EQ(f.kind, std::string(finding_kind::kStructure)) << f.message;
  ASSERT_TRUE(f.offset.has_value());
  EXPECT_GE(*f.offset, h.offset);
  EXPECT_LT(*f.offset, h.offset + h.size);
}

// A folder of SSTs under any names and without CURRENT (tables written by SstFileWriter, or
// copied out of databases) is verified as one set: every table, grouped by the folder; other
// files in it are left alone.
TEST(SstDifferential, AFolderOfSstsUnderAnyNamesIsVerifiedAsASet) {
  CheckProperty(10, 20, [] {
    TempDir dir;
    RC_ASSERT(!dir.path().empty());
    const std::vector<std::string> names = {"v5_crc32c_lz4.sst", "table with spaces",
                                            "export.sst.bak"};
    std::vector<std::string> expected;
    bool fv5 = false;
    for (const std::string& name : names) {
      const SstCase c = *GenCase();
      fv5 |= c.format_version == 5;
      const std::string written = WriteWithRocksDb(c, dir.path());
      fs::rename(written, dir.path() + "/" + name);
      expected.push_back(dir.path() + "/" + name);
    }
    RC_CLASSIFY(fv5, "a format_version 5 table");
    std::ofstream(dir.path() + "/notes.txt") << "not a table\n";
    std::sort(expected.begin(), expected.end());
    RC_ASSERT(LooksLikeRocksDb(dir.path()));
    auto found = FindSstFiles(dir.path());
    RC_ASSERT(found.ok());
    RC_ASSERT(*found == expected);

    VerifyOptions options;
    options.threads = 1;
    const std::vector<std::string> paths = {dir.path()};
    auto report = VerifyPaths(paths, options);
    RC_ASSERT(report.ok());
    RC_ASSERT(report->files.size() == expected.size());
    for (const FileReport& f : report->files) {
      RC_ASSERT(f.format == std::string("rocksdb-sst"));
      RC_ASSERT(f.group == dir.path());
      for (const Finding& x : f.findings) RC_ASSERT(x.severity != Severity::kError);
    }
  });
}

// RocksDB's format_version 0 ends in LevelDB's magic: in a folder without CURRENT it is still
// RocksDB's (its metaindex names rocksdb.properties) and is read with its block-based filter; a
// LevelDB table beside nothing else leaves the folder to LevelDB.
TEST(SstDifferential, AFolderWithAFormatVersion0SstIsReadAsRocksDb) {
  KeyList keys;
  for (int i = 0; i < 300; ++i) keys.Add("k" + std::to_string(1000 + i));
  SstWriteOptions ours;
  ours.block_based_filter = true;
  ours.format_version = 0;
  ours.checksum = ChecksumType::kCrc32c;
  auto written = WriteSst(keys, nullptr, ours);
  ASSERT_TRUE(written.ok());
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/h.bloom.no-compression.sst";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(written->data()),
              static_cast<std::streamsize>(written->size()));
  }
  ASSERT_TRUE(LooksLikeRocksDb(dir.path()));
  VerifyOptions options;
  options.threads = 1;
  const std::vector<std::string> paths = {dir.path()};
  auto report = VerifyPaths(paths, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->files.size(), 1u);
  const FileReport& f = report->files[0];
  EXPECT_EQ(f.format, "rocksdb-sst");
  EXPECT_EQ(f.keys_checked, 300u);
  EXPECT_EQ(f.false_negative_count, 0u);
  for (const Finding& x : f.findings) EXPECT_EQ(x.severity, Severity::kInfo) << x.message;

  // Given alone, the file is RocksDB's too: LevelDB's table format declines a metaindex that
  // names rocksdb.properties, so detection is not ambiguous and the filter is the block-based one.
  EXPECT_EQ(DetectFormat(path, *written), FindFormat("rocksdb-sst"));
  const std::vector<std::string> file = {path};
  auto single = VerifyPaths(file, options);
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  ASSERT_EQ(single->files.size(), 1u);
  EXPECT_EQ(single->files[0].format, "rocksdb-sst");
  EXPECT_EQ(single->files[0].keys_checked, 300u);
  EXPECT_EQ(single->files[0].false_negative_count, 0u);

  // Without RocksDB's properties (a LevelDB table's metaindex) the folder is not RocksDB's.
  TempDir other;
  ByteVector leveldb_like = *written;
  auto sst = SstReader::Open(leveldb_like, path);
  ASSERT_TRUE(sst.ok());
  for (const SstMetaindexEntry& e : sst->metaindex()) {
    if (e.key != kPropertiesBlockName) continue;
    // Rename the entry in place (same length, still sorted after "filter."): "rocksdb.propertiez".
    const auto at =
        std::search(leveldb_like.begin(), leveldb_like.end(), e.key.begin(), e.key.end());
    ASSERT_NE(at, leveldb_like.end());
    *(at + static_cast<std::ptrdiff_t>(e.key.size()) - 1) = 'z';
  }
  {
    std::ofstream out(other.path() + "/000005.ldb", std::ios::binary);
    out.write(reinterpret_cast<const char*>(leveldb_like.data()),
              static_cast<std::streamsize>(leveldb_like.size()));
  }
  EXPECT_FALSE(LooksLikeRocksDb(other.path()));
}

// With CURRENT, a folder is a database: only its NNNNNN.sst are tables (an odd name is not).
TEST(SstDifferential, InADatabaseOnlyTableNamesCount) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  SstCase c;
  c.keys = {"a", "b"};
  c.values = {"1", "2"};
  const std::string written = WriteWithRocksDb(c, dir.path());
  fs::copy_file(written, dir.path() + "/odd.sst");
  std::ofstream(dir.path() + "/CURRENT") << "MANIFEST-000001\n";
  auto found = FindSstFiles(dir.path());
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::vector<std::string>{written});
}

}  // namespace
}  // namespace bloomcodec::rocksdb
