// The list of every format the command line knows, in the order of the contract.
#include <vector>

#include "bloomcodec/format.h"
#include "cassandra/cassandra_formats.h"
#include "leveldb/leveldb_formats.h"
#include "rocksdb/rocksdb_formats.h"

namespace bloomcodec {

std::span<const FormatCodec* const> AllFormats() {
  static const std::vector<const FormatCodec*> all = [] {
    std::vector<const FormatCodec*> v;
    for (const FormatCodec* f : cassandra::Formats()) v.push_back(f);
    for (const FormatCodec* f : leveldb::Formats()) v.push_back(f);
    for (const FormatCodec* f : rocksdb::FilterFormats()) v.push_back(f);
    for (const FormatCodec* f : rocksdb::SstFormats()) v.push_back(f);
    return v;
  }();
  return all;
}

}  // namespace bloomcodec
