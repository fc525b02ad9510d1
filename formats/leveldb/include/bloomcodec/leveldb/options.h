// The LevelDB family's options: what its own flags say (--key-kind, --writer, --basho-build,
// --no-filter, --legacy-1.17, --filter-for; formats/leveldb/flags.cc declares them), carried through the shared option
// structs as one FamilyOptions value (bloomcodec/family_options.h) that only this family reads.
//
//   bloomcodec::VerifyOptions options;
//   options.family.Set(bloomcodec::leveldb::LevelDbOptions{
//       .key_kind = bloomcodec::KeyKind::kUser,
//       .writer = bloomcodec::leveldb::FilterWriter::kGoLevelDb});
//
// Contract: the defaults are what the command line does without the flags (docs/cli.md): the
// key kind and the writer are decided from the table, and a table rewrite writes a filter.
#pragma once

#include <string>

#include "bloomcodec/format.h"

namespace bloomcodec::leveldb {

// Who wrote a table's filter, and so which database reads it: decided from the table's keys
// (kAuto), or forced (--writer). Forcing one whose policy name the table's filter does not carry
// is refused when the table is opened (LevelDB 1.18+ reads only leveldb.BuiltinBloomFilter2;
// LevelDB <= 1.17 and goleveldb only leveldb.BuiltinBloomFilter).
enum class FilterWriter { kAuto, kLevelDb, kLevelDb117, kGoLevelDb };

struct LevelDbOptions {
  KeyKind key_kind = KeyKind::kAuto;          // --key-kind: how probes relate to stored keys
  FilterWriter writer = FilterWriter::kAuto;  // --writer
  bool no_filter = false;                     // --no-filter: a table rewrite drops the filter
  bool legacy_v117 = false;  // --legacy-1.17: a table rewrite writes LevelDB 1.17's filter
  // --filter-for: the database whose reader a table rewrite writes the filter for; kAuto: the
  // input's writer's (LevelDB 1.17's becoming 1.18's unless legacy_v117).
  FilterWriter filter_for = FilterWriter::kAuto;
  // --basho-build: the build of Basho's LevelDB whose hashes its bloom2 filters are read with
  // ("x86-64", "arm64-linux", "arm64-macos", "i386", "armv7"); "": x86-64 for probe, and for
  // verify x86-64 unless those hashes deny stored keys and another build's deny fewer.
  std::string basho_build;
};

}  // namespace bloomcodec::leveldb
