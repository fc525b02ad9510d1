// The eras of Cassandra's bloom filters: one for each on-disk layout of a filter from 0.4 to 5.0,
// each the command line's `--format` of the same name.
//
//   using namespace bloomcodec::cassandra;
//   BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open("nb-1-big-Filter.db"));
//   BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f,
//                               Murmur3Filter::Parse(in.bytes(), in.path(), Era::kV40));
//   bloomcodec::FindFormat("cassandra-4.0");   // the same era's codec
//
// Compatibility contract: an era is what the release that wrote a filter decided by the sstable
// version in the file's name; the comments below give each era's versions, and the library reads
// and writes each exactly as those releases do. Nothing in a Filter.db says its era: a file read
// in another era's layout gives other answers. The values are names, not numbers to store: their
// order is the command line's order of the formats (docs/cli.md), and may grow.
#pragma once

namespace bloomcodec::cassandra {

enum class Era {
  kV10,     // cassandra-1.0: Filter.db of versions f .. hf (0.7 - 1.1), MurmurHash2 64-bit
  kLegacy,  // cassandra-legacy: Filter.db of versions c .. e, a Java-serialized BitSet
  kV06,     // cassandra-0.6: Filter.db of versions before c (0.4 - 0.7 beta): the legacy bytes,
            // keys hashed as Java Strings
  kV10Row,  // cassandra-1.0-row: the column-name filter at the start of a 1.0 Data.db row
  kV12,     // cassandra-1.2: Filter.db of versions ia .. lb (1.2 - 2.2), Murmur3, old index order
  kV30,     // cassandra-3.0: versions ma .. me (3.x) and ScyllaDB's ms, mt: new index order
  kV40,     // cassandra-4.0: versions na .. oa and BTI da (4.0 - 5.0): the bit set's raw bytes
};

// The order of a key's bit indexes, index i = |base + i * step| mod the bit count: OLD (base the
// key's first hash, step its second; every era before 3.0) or NEW (base the second, step the
// first; 3.0 on, because the first is also the Murmur3Partitioner token: CASSANDRA-8413).
enum class IndexOrder { kOld, kNew };

}  // namespace bloomcodec::cassandra
