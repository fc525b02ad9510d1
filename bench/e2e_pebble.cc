// bloomcodec_e2e gen pebble (e2e_pebble.h).
#include "e2e_pebble.h"

#include <algorithm>
#include <string>

#include "bloomcodec/key_list.h"
#include "bloomcodec/output_file.h"
#include "codec/byte_writer.h"
#include "lsmrepair/manifest_writer.h"
#include "manifest/edit_tags.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::bench {
namespace {

namespace fs = std::filesystem;

// An internal key as a MANIFEST bound: the user key, then the LE trailer of a SET at sequence 0
// (what WritePebbleTable writes).
ByteVector Bound(const Key16& user) {
  ByteVector k(user.begin(), user.end());
  k.push_back(1);  // kind SET
  k.insert(k.end(), 7, 0);
  return k;
}

std::string TableName(std::uint64_t number) {
  std::string digits = std::to_string(number);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return digits + ".sst";
}

}  // namespace

Status WritePebbleDatabase(const fs::path& dir, const std::vector<Key16>& sorted_keys,
                           std::size_t keys_per_table) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir.string(), ec.message());
  // The first edit of a new MANIFEST, as Pebble writes it: comparer, log number, next file
  // number, last sequence; then one new-file field (tag 100) per table.
  const std::uint64_t first_table = 4;
  const std::uint64_t tables = (sorted_keys.size() + keys_per_table - 1) / keys_per_table;
  ByteVector edit;
  ByteWriter w(edit);
  const std::string comparer = "leveldb.BytewiseComparator";
  w.PutVarint64(manifest::kComparator);
  w.PutVarint64(comparer.size());
  w.PutBytes(AsBytes(comparer));
  w.PutVarint64(manifest::kLogNumber);
  w.PutVarint64(2);
  w.PutVarint64(manifest::kNextFileNumber);
  w.PutVarint64(first_table + tables);
  w.PutVarint64(manifest::kLastSequence);
  w.PutVarint64(0);
  pebble::PebbleWriteOptions options;  // Pebblev4, 10 bits per key, 4 KiB blocks
  KeyList keys;
  for (std::uint64_t t = 0; t < tables; ++t) {
    const std::size_t begin = t * keys_per_table;
    const std::size_t end = std::min(sorted_keys.size(), begin + keys_per_table);
    keys.Clear();
    keys.Reserve(end - begin, (end - begin) * 16);
    for (std::size_t i = begin; i < end; ++i) keys.Add(ByteSpan(sorted_keys[i]));
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector sst, pebble::WritePebbleTable(keys, options));
    const std::uint64_t number = first_table + t;
    BLOOMCODEC_RETURN_IF_ERROR(WriteFileAtomically((dir / TableName(number)).string(), sst));
    w.PutVarint64(manifest::kNewFile2);
    w.PutVarint64(6);
    w.PutVarint64(number);
    w.PutVarint64(sst.size());
    for (const ByteVector& bound : {Bound(sorted_keys[begin]), Bound(sorted_keys[end - 1])}) {
      w.PutVarint64(bound.size());
      w.PutBytes(bound);
    }
    w.PutVarint64(0);  // smallest and largest sequence numbers
    w.PutVarint64(0);
  }
  ByteVector manifest_log;
  lsmrepair::LogWriter(manifest_log).AddRecord(edit);
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileAtomically((dir / "MANIFEST-000001").string(), manifest_log));
  const std::string options_file = "[Version]\n  pebble_version=0.1\n";
  BLOOMCODEC_RETURN_IF_ERROR(
      WriteFileAtomically((dir / "OPTIONS-000003").string(), AsBytes(options_file)));
  const std::string current = "MANIFEST-000001\n";
  return WriteFileAtomically((dir / "CURRENT").string(), AsBytes(current));
}

}  // namespace bloomcodec::bench
