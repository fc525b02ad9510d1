// Writing LevelDB table files, and rewriting the filter block of an existing one.
//
//   using namespace bloomcodec::leveldb;
//   TableWriteOptions options;
//   options.filter = BloomPolicy::Current(10);
//   TableWriter writer(options);
//   for (...) BLOOMCODEC_RETURN_IF_ERROR(writer.Add(key, value));  // keys strictly increasing
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector table, writer.Finish());
//
// Compatibility contract: for the same keys, values and options, TableWriter produces the bytes
// LevelDB 1.23's TableBuilder produces (bytewise comparator for kPlain; InternalKeyComparator
// and InternalFilterPolicy, as inside a database, for kUser): the same data block cuts
// (block_size against the builder's size estimate), restart points, shortest separators and
// short successor in the index block (restart interval 1), filter block (via
// FilterBlockBuilder), metaindex, footer, CRCs and Snappy choice (kept only when it saves at
// least 1/8). libleveldb opens and reads what it writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blocktable/block_builder.h"  // internal for now: TableWriter holds BlockBuilders
#include "blocktable/block_handle.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/format.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/status.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

struct TableWriteOptions {
  std::size_t block_size = 4096;  // LevelDB's default; a DB clamps to >= 1024, a builder does not
  int restart_interval = 16;      // >= 1
  blocktable::BlockCompression compression = blocktable::BlockCompression::kNone;
  std::optional<BloomPolicy> filter;   // none: no filter block, empty metaindex
  KeyKind key_kind = KeyKind::kPlain;  // kUser: keys are internal keys (database table)
  // LevelDB shortens index keys (FindShortestSeparator / FindShortSuccessor). Off: every index
  // key is its block's last key, which LevelDB reads just as well.
  bool shorten_index_keys = true;
};

class TableWriter {
 public:
  explicit TableWriter(TableWriteOptions options);

  // Keys must increase strictly (bytewise for kPlain, internal-key order for kUser, where each
  // key is a user key plus an 8-byte tag of type 0 or 1).
  Status Add(ByteSpan key, ByteSpan value);
  // The whole table file. The writer is finished afterwards.
  Result<ByteVector> Finish();

  std::uint64_t num_entries() const { return num_entries_; }

 private:
  void FlushDataBlock();
  blocktable::BlockHandle WriteBlock(blocktable::BlockBuilder& block);
  blocktable::BlockHandle WriteRawBlock(ByteSpan contents, blocktable::BlockCompression type);

  TableWriteOptions options_;
  blocktable::KeyOrder order_;
  ByteVector out_;
  blocktable::BlockBuilder data_block_;
  blocktable::BlockBuilder index_block_;
  std::optional<FilterBlockBuilder> filter_;
  ByteVector last_key_;
  std::uint64_t num_entries_ = 0;
  bool pending_index_entry_ = false;
  blocktable::BlockHandle pending_handle_;
  ByteVector separator_;   // scratch
  ByteVector compressed_;  // scratch
  bool finished_ = false;
};

// LevelDB's BytewiseComparator::FindShortestSeparator / FindShortSuccessor, and the
// InternalKeyComparator versions (which shorten the user key and append the tag
// (kMaxSequenceNumber, type 1) only when the user key got shorter and larger).
void ShortestSeparator(blocktable::KeyOrder order, ByteVector& start, ByteSpan limit);
void ShortSuccessor(blocktable::KeyOrder order, ByteVector& key);

// A copy of `table` whose filter block is rebuilt with `policy` (or removed when nullopt).
// Data blocks and the index block are copied byte for byte (their offsets do not change: the
// filter block comes after them), so the result is what TableBuilder would have written with
// that policy. The filter hashes what `reader.key_kind()` says (user keys for kUser). The
// metaindex block is Snappy-compressed (when that saves 1/8) only if the table had Snappy blocks.
Result<ByteVector> RewriteTableFilter(const TableReader& reader,
                                      const std::optional<BloomPolicy>& policy);

// RewriteTableFilter's result as the part that changes, for a writer that copies the rest in the
// kernel (bloomcodec repair): the old file's first `kept_prefix` bytes (its data blocks), then
// `tail` (filter, metaindex, index, footer). Made in one pass over the data blocks (checksums
// verified when the reader was opened so), which also counts the entries and, before returning,
// asks the new filter for every key's hash: a key it would deny is an Internal error.
struct TableFilterTail {
  std::uint64_t kept_prefix = 0;
  ByteVector tail;
  std::uint64_t entries = 0;  // in the data blocks
  // The new filter block's contents are the tail's first bytes (0: no filter block).
  std::uint64_t filter_block_size = 0;
};
// `mapped`: the mapped file reader.file() lies in, when it is one (a repair's old table): the
// pass over the data blocks gives its pages back behind it (blocktable::PageDropper, as verify's
// scan), so a table's pass holds a window of them, not the whole table.
// `prebuilt`: the filter block a repair's tap built for this table (rebuild_tap.h). Taken when
// it was built with `policy` from a file of this size whose data blocks end where the index
// says: then only the index is walked (the tap's verify checked the data blocks).
struct RebuiltFilterBlock;
Result<TableFilterTail> RewriteTableFilterTail(const TableReader& reader,
                                               const std::optional<BloomPolicy>& policy,
                                               const InputFile* mapped = nullptr,
                                               const RebuiltFilterBlock* prebuilt = nullptr);

// The keys' hashes of a table's data blocks in file order, grouped by the offset that decides
// their filter: each data block's, or any offset in the block's 2 KiB filter window (a window
// may hold several groups). Hashes within a filter are order-free (bits are ORed); their count
// sizes it.
struct BlockHashes {
  std::vector<std::uint64_t> offsets;  // of each group, increasing
  std::vector<std::size_t> ends;       // end of each group's hashes in `hashes`
  std::vector<std::uint32_t> hashes;   // BloomHash with the policy's flavor
};
// The filter block FilterBlockBuilder makes from those keys for data blocks ending at
// `data_end`, then asked for every hash as LevelDB's reader asks it: a hash it would deny is an
// Internal error naming `source`.
Result<ByteVector> BuildCheckedFilterBlock(const std::string& source, const BloomPolicy& policy,
                                           const BlockHashes& hashes, std::uint64_t data_end);

}  // namespace bloomcodec::leveldb
