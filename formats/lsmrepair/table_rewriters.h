// The families' parts of a repair (repair_transaction.h): rewriting one table's filter and
// reading the result back. Internal to the library.
//
//   RepairOptions options;
//   options.rewrite = LevelDbFilterRewrite(leveldb::BloomPolicy::Current(12));
//   options.check = LevelDbTableCheck();
//
// A rewrite reads the whole old table once, with its block checksums verified (the data blocks
// and the index: a damaged table is left alone, with the reader's message), rebuilds the filter
// from the table's own keys (hashing each key once) and asks the new filter for every key's hash
// before anything is written (leveldb/table/table_writer.h RewriteTableFilterTail,
// rocksdb/sst/sst_writer.h RewriteSstFilterTail: data and index blocks byte for byte); a table
// whose new filter verify's scan already built (a repair tap's, rocksdb/sst/rebuild_tap.h,
// leveldb/table/rebuild_tap.h) is not read again: its data blocks were checked by that verify, and only its index is walked
// (the table files are immutable; a file of another size under the name is not taken). The part
// the rewrite did not change is handed back as a prefix of the old file, which the transaction
// copies in the kernel. A table whose rewrite equals it is "nothing to change".
// A check opens the written table with the checksums of everything the rewrite wrote verified
// (footer, metaindex, index, properties, filter) and walks its index: as many data blocks as the
// old table's. It does not read the data blocks again: the transaction has compared the written
// file with the old prefix and the new tail byte for byte (repair_transaction.h, step 3).
#pragma once

#include <optional>

#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "leveldb/table/rebuild_tap.h"
#include "lsmrepair/repair_transaction.h"
#include "rocksdb/sst/rebuild_tap.h"

namespace bloomcodec::lsmrepair {

// LevelDB, goleveldb (policy BloomPolicy::GoLevelDb), Mojang's fork. nullopt removes the filter.
// `tap` (may be null, must outlive the function): the filter blocks verify's scan built
// (leveldb/table/rebuild_tap.h), taken for a table it built one for with `policy`.
TableRewriteFn LevelDbFilterRewrite(std::optional<leveldb::BloomPolicy> policy,
                                    const leveldb::RebuildTap* tap = nullptr);
TableCheckFn LevelDbTableCheck();

// RocksDB: the kind follows the table (RewriteSstFilter) unless `encoding` names one (repair
// --to). nullopt bits_per_key removes the filter. `tap` (may be null, must outlive the
// function): the filters verify's scan built (rocksdb/sst/rebuild_tap.h), taken instead of a
// second pass over the data blocks of a table it built one for.
TableRewriteFn RocksDbFilterRewrite(std::optional<double> bits_per_key,
                                    std::optional<rocksdb::FilterEncoding> encoding = std::nullopt,
                                    const rocksdb::RebuildTap* tap = nullptr);
TableCheckFn RocksDbTableCheck();
// Why RocksDbFilterRewrite refuses the table outright (Unsupported: a layout it does not rebuild,
// such as partitioned filters), from its footer, metaindex and properties; OK otherwise (the
// rewrite may still find it damaged).
Status RocksDbRewritable(ByteSpan file, const std::string& path);

}  // namespace bloomcodec::lsmrepair
