// Writing Pebble's row tables: a whole table of keys (`build --format pebble-table`) and a table's
// filter rewritten in place of its old one (`convert T --to pebble-table --bits-per-key B`).
// Internal to the library (included as "pebble/table/table_writer.h").
//
//   using namespace bloomcodec::pebble;
//   PebbleWriteOptions options;                   // Pebblev4, 10 bits per key
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector sst, WritePebbleTable(sorted_keys, options));
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(bytes, "000012.sst"));
//   BLOOMCODEC_ASSIGN_OR_RETURN(PebbleRewrite r, RewritePebbleFilter(t, policy));
//
// Contract (formats/pebble/FORMAT.md §5, §7, §10):
// * The filter block is what Pebble's table writer writes for the same point keys in the same
//   order and the same policy: key[:Split(key)] of every point key (whole keys for
//   leveldb.BytewiseComparator, cockroach_comparator's MVCC prefix), consecutive equal hashes
//   dropped, sized and probed as pebble/bloom.h says; a table without point keys gets the 0-byte
//   filter block of Pebble v1 and v2.
// * WritePebbleTable: the keys (sorted bytewise, distinct) as SETs at sequence number 0 with empty
//   values, CRC-32C, no compression, 4 KiB data blocks of restart interval 16, a one-level index
//   of each block's last key, the properties Pebble always writes; a valid table Pebble reads.
// * RewritePebbleFilter: Pebblev1..v4 row tables, and the RocksDBv2 and LevelDB tables Pebble
//   writes below format major version 5 (opened with PebbleFooters::kPebbleAndRocksDb; their
//   footer is written again under their own magic); RewriteColumnarFilter (below) does Pebblev5+.
//   A filter block the table was opened past (PebbleOpenOptions::tolerate_damaged_filter) is
//   replaced as any other; the new one then takes Pebble's defaults for what the old one would
//   have told (signed hash, rounded probes). Bytes before the first non-data block are
//   copied as they are; every block after the filter keeps its bytes and moves (Pebble's
//   checksums do not depend on a block's place) except those that hold file offsets (a two-level
//   index's top level, the value index), which are re-encoded as Pebble encodes them, and the
//   properties (rocksdb.filter.size and the sizes those blocks change), metaindex and footer.
//   A block two metaindex entries name (rocksdb.range_del and rocksdb.range_del2) is copied once.
//   Rewriting a Pebble-written table with the policy that wrote it gives back its bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "pebble/bloom.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

struct PebbleWriteOptions {
  std::uint32_t version = 4;  // Pebblev1..v4
  BloomPolicy filter;
  std::size_t block_size = 4096;  // Pebble's default BlockSize
};

// `keys` sorted bytewise and distinct (InvalidArgument otherwise).
Result<ByteVector> WritePebbleTable(const KeyList& keys, const PebbleWriteOptions& options);

// The prefixes Pebble's writer adds to a row table's filter: key[:Split(key)] of every point key,
// in file order (the filter writer drops consecutive equal hashes). Unsupported for a comparer
// whose Split we do not know. `data_end`, when given, gets the end of the last data block's
// trailer.
Result<KeyList> PebbleFilterKeys(const PebbleTable& table, std::uint64_t* data_end = nullptr);

struct PebbleRewrite {
  ByteVector bytes;
  std::uint64_t filter_keys = 0;  // the prefixes added (before equal neighbours are dropped)
};
// The table's filter keys and data end, as PebbleFilterKeys gave them for this table: a caller
// that has read them (for PolicyForRewrite, say) hands them over, and the rewrite reads no data
// block again (a repair's data blocks are read once per rewrite, not twice).
struct PebbleFilterKeySet {
  const KeyList& keys;
  std::uint64_t data_end = 0;
};
Result<PebbleRewrite> RewritePebbleFilter(const PebbleTable& table, const BloomPolicy& policy);
Result<PebbleRewrite> RewritePebbleFilter(const PebbleTable& table, const BloomPolicy& policy,
                                          const PebbleFilterKeySet& read);
// The rewritten table's bytes opened again (every footer Pebble writes; the filter block with its
// checksum) and its filter asked for each of `keys`, the keys it was built from: Internal, naming
// `source`, when it answers "not there" for one (a filter that denied a key would lose it). The
// check convert makes of each rewrite.
Status CheckRewrittenFilter(ByteSpan rewritten, const std::string& source, const KeyList& keys);
// The two-argument rewrites: the table's filter keys read (PebbleFilterKeys), then handed over.
Result<PebbleRewrite> RewriteWithItsKeys(
    const PebbleTable& table,
    const std::function<Result<PebbleRewrite>(const PebbleFilterKeySet&)>& rewrite);
// Columnar tables (Pebblev5+, columnar_rewrite.cc): Pebble writes the filter after the index, so
// every byte before the filter (data and index blocks) is kept; the blocks after it move (the
// value index re-encoded); the properties (rocksdb.filter.size, rocksdb.filter.policy,
// pebble.value-blocks.size, pebble.compression_stats' uncompressed count), the metaindex and the
// footer are written in the version's layout (row or key-value blocks, v6+ footer checksum, v7
// attributes as recorded). No point key: no filter block, as Pebble's columnar writer.
Result<PebbleRewrite> RewriteColumnarFilter(const PebbleTable& table, const BloomPolicy& policy);
Result<PebbleRewrite> RewriteColumnarFilter(const PebbleTable& table, const BloomPolicy& policy,
                                            const PebbleFilterKeySet& read);

// The layer below both rewrites, for a repair that writes a table without holding its data
// blocks in memory. `NewFilter`: the filter block's contents (nullopt: no point key, the 0-byte
// block of a row table, no block in a columnar one), the end of the data blocks' trailers
// (DataBlocksEnd), and the keys added (PebbleRewrite::filter_keys).
struct NewFilter {
  std::optional<ByteVector> block;
  std::uint64_t data_end = 0;
  std::uint64_t filter_keys = 0;
};
// The rewrite of either kind as the table's first `kept` bytes, unchanged, then `tail`.
struct PebbleTail {
  std::uint64_t kept = 0;
  ByteVector tail;
};
Result<PebbleTail> RewriteTail(const PebbleTable& table, const NewFilter& filter);
// Its columnar half (columnar_rewrite.cc), and the whole table both three-argument rewrites
// return: the filter built from `read.keys`, then the kept bytes and the tail.
Result<PebbleTail> RewriteColumnarTail(const PebbleTable& table, const NewFilter& filter);
Result<PebbleRewrite> RewriteWhole(const PebbleTable& table, const BloomPolicy& policy,
                                   const PebbleFilterKeySet& read);
// Where the last data block's trailer ends, from the index alone (no data block read).
Result<std::uint64_t> DataBlocksEnd(const PebbleTable& table);

// A block and its trailer appended to `out`: compressed with `compression` when that saves at
// least an eighth (Pebble's rule), the checksum over the stored bytes and the type byte.
// `base`: the offset of out[0] in the table (a tail after kept bytes), which the handle counts.
blocktable::BlockHandle AppendPebbleBlock(ByteSpan contents, blocktable::ChecksumType checksum,
                                          blocktable::BlockCompression compression, ByteVector& out,
                                          std::uint64_t base = 0);
// A row block of raw names (no trailer) in bytewise order: the metaindex (restart interval 1)
// and the properties (restart interval 2^31 - 1), as Pebble lays them out.
ByteVector EncodeNamedBlock(const std::map<std::string, ByteVector>& entries,
                            std::uint32_t restart_interval);
inline constexpr std::uint32_t kMetaindexRestartInterval = 1;
inline constexpr std::uint32_t kPropertiesRestartInterval = 0x7fffffff;

// The policy a rewrite at `bits_per_key` keeps from the table's own filter: its hash flavour
// (told from its keys) and the probe era its filter shows (the rounded one wherever both fit).
// `hashes`, when given, gets the keys' collapsed hashes in that flavour, which build the filter
// (BuildBloomFromHashes) without hashing the keys again.
BloomPolicy PolicyForRewrite(const PebbleTable& table, const KeyList& filter_keys,
                             std::uint32_t bits_per_key,
                             std::vector<std::uint64_t>* hashes = nullptr);
// The same from what the keys showed: the evidence of the table's filter keys against its old
// filter (DecideHashFlavor's), and how many hashes the flavour it chooses keeps of them (its
// collapsed hashes). A repair's tap on verify's scan (rebuild_tap.h) decides so.
BloomPolicy PolicyFromEvidence(const PebbleTable& table, const HashFlavorEvidence& evidence,
                               std::uint64_t num_hashes, std::uint32_t bits_per_key);

}  // namespace bloomcodec::pebble
