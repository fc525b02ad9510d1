// Streamed, parallel verify against the single whole-file pass: the input is an Index.db (of a
// 4.0 sstable whose Filter.db holds 64 known keys), a LevelDB table or a RocksDB SST, chosen by
// its first byte. It is verified with one window, range and chunk for the whole file, then with
// tiny ones on a pool of three workers: the two reports must be equal field by field (findings
// in order with offsets and messages, counts, false negatives, fill), whatever the damage. The
// split pass of a table or an SST feeds a repair's tap (leveldb/table/rebuild_tap.h,
// rocksdb/sst/rebuild_tap.h) as well: a filter it keeps must make the rewrite the rewrite's own
// pass makes; so does a split verify of the sstable (cassandra/rebuild_tap.h): a filter built
// from the hashes it kept must be the one the keys build.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "blocktable/stream.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/rebuild_tap.h"
#include "cassandra/repair/keys.h"
#include "cassandra/repair/rebuild.h"
#include "cassandra/verify.h"
#include "codec/parallel.h"
#include "fuzz_support.h"
#include "leveldb/table/rebuild_tap.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb/table/verify.h"
#include "rocksdb/sst/rebuild_tap.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/verify.h"
#include "tests/support/report_equal.h"

using namespace bloomcodec;

namespace {

namespace fs = std::filesystem;

const fs::path& Dir() {
  static const fs::path dir = [] {
    fs::path d =
        fs::temp_directory_path() / ("bloomcodec-verify-stream-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d / "ks" / "tbl-0123456789abcdef0123456789abcdef");
    return d;
  }();
  return dir;
}

void Write(const fs::path& path, ByteSpan bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// The filter every fuzzed Index.db is checked against: keys "k0" .. "k63", K 5, 64 words.
const ByteVector& FilterBytes() {
  static const ByteVector filter = [] {
    KeyList keys;
    for (int i = 0; i < 64; ++i) keys.Add("k" + std::to_string(i));
    return *cassandra::BuildMurmur3Filter(keys, 5, 64, cassandra::Era::kV40);
  }();
  return filter;
}

template <typename Verify>
void CheckSame(Verify verify) {
  const FileReport whole = verify(true);
  FileReport split;
  WorkPool pool(3);
  pool.Run(1, [&](std::size_t) { split = verify(false); });
  FUZZ_CHECK(bloomcodec::testing::ReportDifference(whole, split).empty());
}

// A filter the tap kept makes the rewrite the rewrite's own pass makes, byte for byte.
void CheckTappedRewrite(const std::string& path, ByteSpan file, const rocksdb::RebuildTap& tap) {
  const rocksdb::RebuiltFilter* f = tap.Find(path, file.size(), 10, std::nullopt);
  if (f == nullptr) return;
  rocksdb::SstOpenOptions open;
  open.verify_checksums = true;
  open.verify_filter_checksum = false;
  Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(file, path, open);
  FUZZ_CHECK(sst.ok());  // verify read it whole
  const Result<rocksdb::SstFilterTail> own = rocksdb::RewriteSstFilterTail(*sst, 10);
  const Result<rocksdb::SstFilterTail> taken =
      rocksdb::RewriteSstFilterTail(*sst, 10, std::nullopt, nullptr, f);
  FUZZ_CHECK(own.ok() && taken.ok());
  FUZZ_CHECK(own->kept_prefix == taken->kept_prefix && own->entries == taken->entries &&
             own->tail == taken->tail);
}

// A Cassandra sstable's tap (cassandra/rebuild_tap.h) on the split verify: when it holds every
// key's hash, the filter built from them is the one the keys' own passes build.
void CheckCassandraTap(const cassandra::SstableFiles& sstable) {
  cassandra::RebuildTap tap(std::uint64_t{1} << 20);
  cassandra::SstableFiles tapped = sstable;
  tapped.limits = {64, 32, 3};
  tapped.tap = &tap;
  WorkPool(3).Run(1, [&](std::size_t) { cassandra::VerifySstable(tapped); });
  if (!tap.complete()) return;
  const cassandra::Era era = sstable.descriptor.era();
  const cassandra::FilterSizing sizing = cassandra::GivenFpChance(0.01);
  const Result<std::optional<cassandra::RebuiltFilter>> from_tap =
      cassandra::RebuildFilterFromHashes(tap.chunks(), era, sizing);
  Result<std::unique_ptr<KeyStream>> keys = cassandra::SstableKeys(sstable);
  FUZZ_CHECK(keys.ok());  // verify read them all
  const Result<cassandra::RebuiltFilter> own = cassandra::RebuildFilter(**keys, era, sizing);
  FUZZ_CHECK(from_tap.ok() == own.ok());  // a sizing the writer refuses, refused either way
  if (!own.ok()) return;
  FUZZ_CHECK(from_tap->has_value() && own->keys == (*from_tap)->keys &&
             own->bytes == (*from_tap)->bytes);
}

// The same for a LevelDB table's filter block, at the policy the tap built it with.
void CheckTappedRewrite(const std::string& path, ByteSpan file, const leveldb::RebuildTap& tap) {
  const leveldb::RebuiltFilterBlock* f = tap.Find(path, file.size());
  if (f == nullptr) return;
  leveldb::TableOpenOptions open;
  open.verify_checksums = true;
  open.verify_filter_checksum = false;
  open.key_kind = KeyKind::kUser;
  Result<leveldb::TableReader> table = leveldb::TableReader::Open(file, path, open);
  FUZZ_CHECK(table.ok());  // verify read it whole, as a database's table
  const Result<leveldb::TableFilterTail> own = leveldb::RewriteTableFilterTail(*table, f->policy);
  const Result<leveldb::TableFilterTail> taken =
      leveldb::RewriteTableFilterTail(*table, f->policy, nullptr, f);
  FUZZ_CHECK(own.ok() && taken.ok());
  FUZZ_CHECK(own->kept_prefix == taken->kept_prefix && own->entries == taken->entries &&
             own->tail == taken->tail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const ByteSpan file(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      const fs::path table = Dir() / "ks" / "tbl-0123456789abcdef0123456789abcdef";
      Write(table / "na-1-big-Index.db", file);
      Write(table / "na-1-big-Filter.db", FilterBytes());
      auto found = cassandra::FindSstables(Dir().string());
      FUZZ_CHECK(found.ok() && found->size() == 1);
      cassandra::SstableFiles s = found->front();
      CheckSame([&](bool whole) {
        s.limits =
            whole ? cassandra::StreamLimits{std::uint64_t{1} << 62, std::uint64_t{1} << 62,
                                            std::size_t{1} << 30}
                  : cassandra::StreamLimits{1 + data[0] % 61u, 1 + data[0] % 13u, 1 + data[0] % 5u};
        return cassandra::VerifySstable(s);
      });
      CheckCassandraTap(found->front());
      break;
    }
    case 1:
    case 2: {
      const bool leveldb = data[0] % 3 == 1;
      const std::string path = (Dir() / (leveldb ? "000005.ldb" : "000005.sst")).string();
      Write(path, file);
      rocksdb::RebuildTap tap(10, std::nullopt);
      leveldb::RebuildTap leveldb_tap(10);
      CheckSame([&](bool whole) {
        blocktable::StreamLimits limits;
        if (whole) {
          limits.chunk_keys = std::size_t{1} << 40;
          limits.min_range_bytes = std::uint64_t{1} << 62;
          limits.max_ranges = 1;
          limits.drop_window = std::uint64_t{1} << 62;
        } else {
          limits.chunk_keys = 1 + data[0] % 7u;
          limits.min_range_bytes = 1;
          limits.max_ranges = 1u << 20;
          limits.drop_window = 1;
        }
        blocktable::ScopedStreamLimits scoped(limits);
        // The split pass also feeds a repair's tap: the report must not change.
        return leveldb
                   ? leveldb::VerifyTable(path, KeyKind::kAuto, nullptr, "g",
                                          leveldb::FilterWriter::kAuto, nullptr,
                                          whole ? nullptr : &leveldb_tap)
                   : rocksdb::VerifySst(path, nullptr, "g", std::nullopt, whole ? nullptr : &tap);
      });
      if (leveldb) {
        CheckTappedRewrite(path, file, leveldb_tap);
      } else {
        CheckTappedRewrite(path, file, tap);
      }
      break;
    }
  }
  return 0;
}
