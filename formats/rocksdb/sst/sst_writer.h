// Writing a RocksDB SST file (block-based table) holding given user keys, with a full filter
// (or, for tests of what RocksDB <= 6.x wrote, a block-based one).
//
//   using namespace bloomcodec::rocksdb;
//   SstWriteOptions options;
//   options.bits_per_key = 10;                       // NewBloomFilterPolicy(10), format_version 5
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector sst, WriteSst(sorted_distinct_user_keys, options));
//
// Compatibility contract: RocksDB 7.8 opens the result (SstFileReader, DB::IngestExternalFile),
// iterates exactly the keys given (each with sequence 0, type value, as SstFileWriter writes
// them) and verifies every checksum. The filter block is byte-identical to the one RocksDB's
// SstFileWriter writes for the same keys and policy (whole-key filtering, keys in order); the
// other blocks need not be (RocksDB shortens index separators and records session ids and
// times in its properties). Layout: format_version 5 footer, XXH3 checksums (or the type
// asked), uncompressed blocks, binary-search index of user keys with whole handles
// (rocksdb.index.value.is.delta.encoded = 0, which RocksDB reads from the property).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "blocktable/trailer.h"  // internal for now: ChecksumType in this API
#include "bloomcodec/bytes.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

struct SstWriteOptions {
  double bits_per_key = 10;
  FilterEncoding filter = FilterEncoding::kFastLocalBloom;  // kRibbon: NewRibbonFilterPolicy
  std::size_t block_size = 4096;
  int restart_interval = 16;
  blocktable::ChecksumType checksum = blocktable::ChecksumType::kXxh3;
  // RocksDB <= 6.x's block-based filter (use_block_based_builder) instead of a full filter:
  // "filter.rocksdb.BuiltinBloomFilter" in LevelDB's filter-block layout, one legacy Bloom
  // filter per 2 KiB of data-block offsets, round(bits_per_key) bits per key, RocksDB's BloomHash
  // (BlockBasedFilterBlockBuilder with the deprecated BloomFilterPolicy of 6.x).
  bool block_based_filter = false;
  // The policy's name as RocksDB 6.x and 7.0.0 to 7.0.2 record it, in the filter's metaindex key
  // ("fullfilter." or "filter." + name) and in rocksdb.filter.policy: the aliases other builds
  // wrote (TiKV's rocksdb.BuiltinBloomFilter.BlockBloom, see IsBuiltinFilterName). nullopt:
  // rocksdb.BuiltinBloomFilter in the key, and the property as 7.8 records it.
  std::optional<std::string> policy_name;
  // Tests of other policies' filters (Speedb's paired Bloom): these bytes as the full filter
  // block, under `policy_name`, instead of one built here.
  std::optional<ByteVector> full_filter;
  // The footer's format_version; 0 writes LevelDB's magic (RocksDB's format_version 0, which
  // needs CRC32c). nullopt: 5 for full filters, 4 for the legacy Bloom, 4 for block-based ones.
  // 6 and 7 write context checksums with `base_context_checksum` (RocksDB draws it at random;
  // fixed here so that output is reproducible) and the index handle in the metaindex.
  std::optional<std::uint32_t> format_version;
  std::uint32_t base_context_checksum = 0x5eedb10c;
};

// `user_keys` must be strictly increasing bytewise; `values` (optional) one per key.
Result<ByteVector> WriteSst(const KeyList& user_keys, const KeyList* values,
                            const SstWriteOptions& options);

}  // namespace bloomcodec::rocksdb

namespace bloomcodec::rocksdb {

class SstReader;
struct RebuiltFilter;  // rocksdb/sst/rebuild_tap.h

// A copy of `sst` with its full filter rebuilt for `bits_per_key` (nullopt: removed), from the
// user keys of its own data blocks (each once, in file order, as RocksDB's builder adds them).
// The kind follows the file unless `encoding` names one (repair --to): Ribbon stays Ribbon;
// otherwise FastLocalBloom for format_version 5, the legacy Bloom below. Data blocks, the index and other meta blocks are copied byte for byte
// (their checksums do not depend on where they sit); the properties block is rewritten with the
// new rocksdb.filter.size / rocksdb.filter.policy / rocksdb.num.filter_entries; the metaindex and
// footer follow. The new filter block is the one RocksDB writes for those keys and policy.
// A partitioned filter is rebuilt as one, cut along the table's index partitions as RocksDB's
// builder cuts it; the index partitions move after it and the index's top level is re-encoded
// (sst_tail.h, formats/rocksdb/FORMAT.md "Partitioned filters"). Under a two-level index a full
// filter is rebuilt the same way: the index partitions move after it, the top level re-encoded.
// A block-based filter becomes a full filter (RocksDB reads none since 7.4). With a built-in
// prefix extractor the filter takes the prefixes RocksDB's builder adds, as the release that
// wrote the table added them (sst_rewrite_prefix.h). Refused: a partitioned filter without a
// two-level index, a custom prefix extractor (its prefixes cannot be computed), no whole-key
// filtering without a prefix extractor. Note: a database's MANIFEST records each table's size; a
// rewritten table belongs in a fresh ingest (DB::IngestExternalFile), not in place in a live database.
Result<ByteVector> RewriteSstFilter(const SstReader& sst, std::optional<double> bits_per_key,
                                    std::optional<FilterEncoding> encoding = std::nullopt);
// Why RewriteSstFilter refuses `sst` (an Unsupported status naming what: a partitioned filter
// without a two-level index, a custom prefix extractor, no whole-key filtering without an
// extractor, no properties), read
// from its footer, metaindex and properties only; OK when it rewrites it.
Status CheckFilterRewritable(const SstReader& sst);

// RewriteSstFilter's result as the part that changes, for a writer that copies the rest in the
// kernel (bloomcodec repair): the old file's first `kept_prefix` bytes (its data blocks), then
// `tail`. Made in one pass over the data blocks (hashing each key once), which also counts the
// entries and, before returning, asks the new filter for every key's hash: a key it would deny
// is an Internal error.
struct SstFilterTail {
  std::uint64_t kept_prefix = 0;
  ByteVector tail;
  std::uint64_t entries = 0;  // in the data blocks
  // The new full filter's contents are the tail's first bytes (0: no filter). Partitioned: the
  // tail's first bytes are its partitions and then their index, each block with its trailer,
  // filter_block_size bytes in all; the index's contents are the last filter_index_size bytes
  // before the last trailer (the figures of the new filter are read from them: a dry run).
  std::uint64_t filter_block_size = 0;
  std::uint64_t filter_index_size = 0;
  // The new filter is partitioned: its partitions and their index open the tail.
  bool partitioned = false;
};
// `mapped`: the mapped file sst.file() lies in, when it is one (a repair's old table): the pass
// over the data blocks gives its pages back behind it (blocktable::PageDropper, as verify's
// scan), so a table's pass holds a window of them, not the whole table.
// `prebuilt`: the new full filter verify's scan already built for this table and these
// parameters (rocksdb/sst/rebuild_tap.h); when it applies (a full filter of whole keys, the same
// kind and bits per key, the same file), the data blocks are not read again: only the index is
// walked, for where the data blocks end. Otherwise, or when null, the pass above makes it.
Result<SstFilterTail> RewriteSstFilterTail(const SstReader& sst, std::optional<double> bits_per_key,
                                           std::optional<FilterEncoding> encoding = std::nullopt,
                                           const InputFile* mapped = nullptr,
                                           const RebuiltFilter* prebuilt = nullptr);

// A full filter built from the collapsed hashes of a table's keys and asked for every one of
// them before it is handed back: a hash it would deny is an Internal error naming `source`.
Result<ByteVector> BuildCheckedFullFilter(const std::string& source, FilterEncoding encoding,
                                          double bits_per_key,
                                          std::span<const std::uint64_t> hashes);

}  // namespace bloomcodec::rocksdb
