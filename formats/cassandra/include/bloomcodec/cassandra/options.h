// The Cassandra family's options: what its own flags say (--partitioner; formats/cassandra/
// flags.cc declares it), carried through the shared option structs as one FamilyOptions value
// (bloomcodec/family_options.h) that only this family reads.
//
//   bloomcodec::VerifyOptions options;
//   options.family.Set(
//       bloomcodec::cassandra::CassandraOptions{.partitioner = bloomcodec::cassandra::Partitioner::kRandom});
//
// Contract: the defaults are what the command line does without the flags (docs/cli.md).
#pragma once

namespace bloomcodec::cassandra {

// How the Index.db keys of sstables before version e were written.
enum class Partitioner {
  kFromData,         // told from the data (an entry whose token is its key's MD5 token)
  kRandom,           // RandomPartitioner's "<token>:<key>"
  kOrderPreserving,  // an order-preserving partitioner's key itself
};

struct CassandraOptions {
  Partitioner partitioner = Partitioner::kFromData;  // --partitioner
};

}  // namespace bloomcodec::cassandra
