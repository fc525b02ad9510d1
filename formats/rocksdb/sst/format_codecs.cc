// The RocksDB block-based table format as the command line sees it: `rocksdb-sst`.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "bloomcodec/rocksdb/options.h"
#include "formats/rocksdb/family.h"
#include "rocksdb/sst/inspect.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/table_files.h"

namespace bloomcodec::rocksdb {

using blocktable::CompareKeys;
using blocktable::HasBlockBasedTableMagic;
using blocktable::KeyOrder;

namespace {

class SstFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "rocksdb-sst"; }
  std::string_view summary() const override {
    return "a RocksDB block-based table (SST); its full or partitioned filter is found through "
           "the metaindex";
  }
  std::string_view params_help() const override { return "--bits-per-key B"; }

  // The block-based magic of format_version >= 1, and a format_version 0 table (LevelDB's magic)
  // whose metaindex names RocksDB's properties block: LevelDB never writes one, and leaves such
  // a table to this format.
  bool Claims(std::string_view, ByteSpan contents) const override {
    return HasBlockBasedTableMagic(contents) || IsRocksDbFormatVersion0Table(contents, "");
  }

  // An SST of the keys sorted bytewise with duplicates dropped (SstFileWriter requires strictly
  // increasing keys), empty values, and a FastLocalBloom full filter of NewBloomFilterPolicy(B)
  // at format_version 5: the filter block is byte-identical to SstFileWriter's for the same
  // keys; the rest is a valid table RocksDB 7.8 reads (see sst_writer.h).
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.fp_chance || params.buckets_per_element || params.expected_keys) {
      return Status::InvalidArgument(
          "rocksdb-sst takes only --bits-per-key B (the filter is sized from the file's keys)");
    }
    if (!params.bits_per_key) return Status::InvalidArgument("rocksdb-sst needs --bits-per-key B");
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto less = [&](std::size_t x, std::size_t y) {
      return CompareKeys(KeyOrder::kBytewise, keys[x], keys[y]) < 0;
    };
    std::stable_sort(order.begin(), order.end(), less);
    KeyList sorted;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i > 0 && !less(order[i - 1], order[i])) continue;
      sorted.Add(keys[order[i]]);
    }
    SstWriteOptions options;
    options.bits_per_key = *params.bits_per_key;
    return WriteSst(sorted, nullptr, options);
  }

  Result<SizeInfo> Size(const FilterParams&) const override {
    return Status::Unsupported(
        "size is not defined for rocksdb-sst: use --format rocksdb-bloom, rocksdb-bloom-legacy "
        "or rocksdb-ribbon for the full filter an SST of N keys holds");
  }

  Status Hash(ByteSpan, std::string&) const override {
    return Status::Unsupported(
        "hash is not defined for rocksdb-sst (the hash depends on the filter's kind): use "
        "--format rocksdb-bloom-legacy (32-bit) or rocksdb-bloom / rocksdb-ribbon (64-bit)");
  }

  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys,
               const ProbeOptions& options, std::span<std::uint8_t> answers) const override {
    const RocksDbOptions* mine = options.family.Find<RocksDbOptions>();  // no copy per batch
    if (mine && mine->key_kind == KeyKind::kPlain) {
      return Status::InvalidArgument(
          "--key-kind plain does not apply to rocksdb-sst: an SST holds internal keys and its "
          "filter hashes user keys; probes are user keys");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(file, std::string(source)));
    return sst.MayContainBatch(keys, answers);
  }

  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectSst(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpSst(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpSst(dump, source);
  }
};

}  // namespace

const FormatCodec* SstCodec() {
  static const SstFormat sst;
  return &sst;
}

}  // namespace bloomcodec::rocksdb
