// Index.db of Cassandra SSTable versions a .. hf (0.6 - 1.1) and of the BIG format ia .. oa
// (1.2 - 5.0): the keys a Filter.db was built from.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open("Standard1-hc-1-Index.db"));
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::IndexDb index,
//       cassandra::ReadIndexDb(in.bytes(), in.path(), cassandra::IndexKeyFormForVersion("hc")));
//   filter.MayContainBatch(index.keys, answers);   // every answer must be 1
//
// Layout: entries until the end of the file, no header, count or checksum: u16 BE key length L,
// L key bytes, then the row index entry (IndexEntryForm): up to hf an i64 BE position of the row
// in Data.db; ia .. lb an i64 BE position, an i32 BE promoted-index size S and S bytes; ma and
// later (BIG) the position and S as Cassandra's unsigned vints, then S bytes. BTI sstables (da)
// have no Index.db (their partition index is the trie of Partitions.db). The key bytes are exactly what the writer
// added to the filter, except in versions before `e` ("hasEncodedKeys"), where Index.db holds
// the partitioner's disk form of the key (0.6's writeUTF of convertToDiskFormat) and the filter
// was given the decoded key.
//
// Compatibility contract: the keys come back in file order, as Cassandra's index reader decodes
// them for the filter. Stricter than the original, which only reads what it needs: an entry cut
// short by the end of the file, a negative position, or positions that do not increase (rows are
// appended to Data.db one after another) are Corrupt at the offset of the damaged field (the
// position after the key, or the promoted index after its size), in the entry named by number.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

enum class IndexKeyForm {
  kRaw,  // e and later: the key bytes themselves
  // a .. d with RandomPartitioner, 0.7's default: "<token in decimal>:<key>"; the filter key is
  // what follows the first ':'. Order-preserving partitioners stored the raw key (kRaw), which
  // DetectIndexKeyFormBeforeE tells apart by the MD5 token.
  kRandomPartitionerEncoded,
};

// kRandomPartitionerEncoded for versions before "e", else kRaw.
IndexKeyForm IndexKeyFormForVersion(std::string_view version);

// RandomPartitioner's token of `key` as its disk form prints it (0.6 / 0.7
// FBUtilities.hash): the MD5 of the key read as a signed big-endian BigInteger, made
// non-negative, in decimal.
std::string RandomPartitionerToken(ByteSpan key);
// Which partitioner wrote an Index.db of a version before "e", told from the data: when one of
// its first entries is "<token>:<key>" with the token RandomPartitioner's of that key,
// kRandomPartitionerEncoded; otherwise kRaw (an order-preserving partitioner stored the key
// itself). A file whose first entry cannot be read keeps kRandomPartitionerEncoded, the
// default of those releases, so its damage is reported as before.
IndexKeyForm DetectIndexKeyFormBeforeE(ByteSpan file);
// IndexKeyFormForVersion, with the partitioner told from `file` before "e".
IndexKeyForm IndexKeyFormFor(std::string_view version, ByteSpan file);

// What follows the key of an entry (RowIndexEntry's serializer of the version).
enum class IndexEntryForm {
  kPositionOnly,             // a .. hf: i64 BE position
  kLongPositionAndPromoted,  // ia .. lb: i64 BE position, i32 BE size S, S bytes
  kVIntPositionAndPromoted,  // ma .. oa: unsigned vint position, unsigned vint S (an int), S bytes
};
IndexEntryForm IndexEntryFormForVersion(std::string_view version);

// Cassandra's unsigned vint (VIntCoding): the count of leading 1 bits of the first byte is the
// number of extra bytes; the value is big-endian over the first byte's remaining bits and those
// bytes (1 to 9 bytes in all).
void PutCassandraUnsignedVInt(ByteVector& out, std::uint64_t value);

struct IndexDb {
  KeyList keys;                         // the filter's keys (decoded), in file order
  std::vector<std::int64_t> positions;  // the Data.db position of each row
};

// Reads every entry; errors name `source` and the entry's byte offset.
Result<IndexDb> ReadIndexDb(ByteSpan file, std::string_view source,
                            IndexKeyForm form = IndexKeyForm::kRaw);
// The same, keeping in `index` the entries read before the first damaged one (verify still
// checks those keys).
Status ReadIndexDbInto(ByteSpan file, std::string_view source, IndexKeyForm form, IndexDb& index);
// Any entry form (the key form of ia and later is kRaw).
Status ReadIndexDbInto(ByteSpan file, std::string_view source, IndexKeyForm key_form,
                       IndexEntryForm entry_form, IndexDb& index);

// Streaming (verify, convert): the entries in bounded steps, without allocating per entry.
//
//   IndexScan scan;                       // structure and keys, a window at a time
//   std::vector<KeySpan> keys;
//   Status damage = ScanIndexEntries(file, path, form, entry_form, scan.offset + window, scan,
//                                    &keys);   // then copy the window's keys into chunks
//
// Where a scan stands: the next entry's offset, the entries read, the last Data.db position
// (-1 before the first entry).
struct IndexScan {
  std::uint64_t offset = 0;
  std::uint64_t entries = 0;
  std::int64_t last_position = -1;
};
// Reads entries from scan.offset with every check ReadIndexDbInto makes, until the next entry
// starts at or after `until` or the file ends. On damage, the Status ReadIndexDbInto gives for
// the same file, with `scan` at the damaged entry (scan.entries keys before it are sound).
// With `keys`, the filter key of each entry read is appended to it, in place in `file`: the keys
// of a window, found once, then probed where they are. With `hashes` too, each key's
// CassandraMurmur3 is appended there: hashed inside the scan, the hash overlaps the scan's chain
// of dependent loads (an entry's start is known only from the one before it), where a later
// pass would pay for both.
Status ScanIndexEntries(ByteSpan file, std::string_view source, IndexKeyForm form,
                        IndexEntryForm entry_form, std::uint64_t until, IndexScan& scan,
                        std::vector<ByteSpan>* keys = nullptr,
                        std::vector<Murmur3Hash>* hashes = nullptr);
// Writes an Index.db (raw key form) for `keys` with the given positions
// (positions.size() == keys.size()); keys longer than 65535 bytes are InvalidArgument.
Result<ByteVector> WriteIndexDb(const KeyList& keys, std::span<const std::int64_t> positions);
// The same with positions as if each row took `row_bytes` bytes of Data.db (tests, fixtures).
Result<ByteVector> WriteIndexDb(const KeyList& keys, std::int64_t row_bytes = 64);
// An Index.db of a 1.2 - 5.0 entry form; entry i carries a promoted index of promoted_sizes[i]
// bytes (zeros: the reader skips them; an empty span means 0 for every entry).
Result<ByteVector> WriteIndexDb(const KeyList& keys, std::span<const std::int64_t> positions,
                                IndexEntryForm form,
                                std::span<const std::uint32_t> promoted_sizes = {});

}  // namespace bloomcodec::cassandra
