// Internal: the keys an sstable's writer gave its filter, read back from the sstable, as a
// KeyStream that repair passes over twice (count, then build) and once more to check the result.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<KeyStream> keys, cassandra::SstableKeys(sstable));
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, CountKeys(*keys));
//   keys->ForEachChunk([&](std::span<const ByteSpan> chunk) { filter.AddAll(chunk); ... });
//
// Where they come from: Index.db (BIG), a window of 1 MiB at a time through ScanIndexEntries,
// the keys read in place in the mapping and its pages given back behind the scan; or, for a
// trie-indexed sstable (BTI, ScyllaDB ms / mt), Partitions.db followed to Rows.db / Data.db
// (bti::StreamTrieIndexKeys). Each key is what the writer added to the filter: before version e
// the RandomPartitioner disk form is decoded (the partitioner told from the data, or forced);
// before c (the 0.6 filter) each entry is the Java String readUTF gives, as the bytes the filter
// hashes: String.getBytes("UTF-16").
//
// Contract: every pass gives the same keys in file order, in chunks of at most kStreamChunkKeys.
// Any damage (an Index.db entry cut short, a trie that does not add up, a key that cannot be read
// from Data.db) ends the pass with a Corrupt status naming the file and offset: a filter must
// never be built from part of the keys. For a trie, damage found only at the end of the walk
// comes after chunks were delivered; the pass still fails.
#pragma once

#include <memory>

#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"
#include "cassandra/verify.h"

namespace bloomcodec::cassandra {

Result<std::unique_ptr<KeyStream>> SstableKeys(const SstableFiles& sstable);

}  // namespace bloomcodec::cassandra
