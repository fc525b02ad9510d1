// The RocksDB family's options: what its own flags say (--key-kind, --prefix-extractor,
// --no-filter; formats/rocksdb/flags.cc declares them), carried through the shared option
// structs as one FamilyOptions value (bloomcodec/family_options.h) that only this family reads.
//
//   bloomcodec::VerifyOptions options;
//   options.family.Set(bloomcodec::rocksdb::RocksDbOptions{.prefix_extractor = "fixed:4"});
//
// Contract: the defaults are what the command line does without the flags (docs/cli.md).
#pragma once

#include <string>

#include "bloomcodec/format.h"

namespace bloomcodec::rocksdb {

struct RocksDbOptions {
  // --key-kind: an SST holds internal keys and its filter hashes user keys, so probes are user
  // keys; kPlain is refused.
  KeyKind key_kind = KeyKind::kAuto;
  // --prefix-extractor, for SSTs given as files: fixed:N, capped:N or noop, applied in place of
  // the extractor the table records; empty: the recorded one when it is built in.
  std::string prefix_extractor;
  bool no_filter = false;  // --no-filter: an SST rewrite drops the full filter
};

}  // namespace bloomcodec::rocksdb
