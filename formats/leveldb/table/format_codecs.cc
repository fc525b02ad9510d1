// The `leveldb-table` format of the command line: an .ldb / .sst file, probed through its index
// and filter as LevelDB's read path does.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "blocktable/footer.h"
#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/hash.h"
#include "bloomcodec/leveldb/options.h"
#include "leveldb/inspect.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {

using blocktable::CompareKeys;
using blocktable::KeyOrder;

namespace {

class TableFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "leveldb-table"; }
  std::string_view summary() const override {
    return "an .ldb / .sst table file; its filter is found through the metaindex";
  }
  std::string_view params_help() const override { return "--bits-per-key N"; }

  // LevelDB's magic, unless the metaindex names a block LevelDB never writes (RocksDB's
  // "rocksdb.*" blocks: a RocksDB format_version 0 table, which rocksdb-sst claims). A table
  // too damaged to list its metaindex stays claimed, so its damage is reported as a table's.
  bool Claims(std::string_view, ByteSpan contents) const override {
    if (!blocktable::HasLevelDbTableMagic(contents)) return false;
    TableOpenOptions open;
    open.key_kind = KeyKind::kPlain;
    Result<TableReader> table = TableReader::Open(contents, "", open);
    if (!table.ok()) return true;
    for (const MetaindexEntry& e : table->metaindex()) {
      if (e.key.starts_with("rocksdb.")) return false;
    }
    return true;
  }

  // A table of the keys sorted bytewise with duplicates dropped (a TableBuilder requires
  // strictly increasing keys), empty values, LevelDB's default block size 4096 and restart
  // interval 16, no compression, and a leveldb.BuiltinBloomFilter2 filter hashing the keys as
  // given: what a TableBuilder with NewBloomFilterPolicy(N) writes for them.
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.fp_chance || params.buckets_per_element || params.expected_keys) {
      return Status::InvalidArgument(
          "leveldb-table takes only --bits-per-key N (no --fp-chance, --buckets-per-element or "
          "--expected-keys: the filters are sized from the keys of each 2 KiB of data blocks)");
    }
    if (!params.bits_per_key) {
      return Status::InvalidArgument("leveldb-table needs --bits-per-key N");
    }
    const double b = *params.bits_per_key;
    // NewBloomFilterPolicy takes an int.
    if (!(b >= 0) || b != std::floor(b) || b > 1'000'000) {
      return Status::InvalidArgument(
          "--bits-per-key must be an integer from 0 to 1000000 for "
          "leveldb-table (NewBloomFilterPolicy takes an int)");
    }
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return CompareKeys(KeyOrder::kBytewise, keys[x], keys[y]) < 0;
    });
    TableWriteOptions options;
    options.filter = BloomPolicy::Current(static_cast<int>(b));
    TableWriter writer(options);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i > 0 && CompareKeys(KeyOrder::kBytewise, keys[order[i - 1]], keys[order[i]]) == 0) {
        continue;
      }
      BLOOMCODEC_RETURN_IF_ERROR(writer.Add(keys[order[i]], {}));
    }
    return writer.Finish();
  }

  // A table has one filter per 2 KiB of data-block offsets, each sized by the keys of its own
  // blocks: there is no single "filter the original would allocate" for N keys. The size of one
  // bloom filter is the leveldb-bloom format's answer.
  Result<SizeInfo> Size(const FilterParams&) const override {
    return Status::Unsupported(
        "size is not defined for leveldb-table: a table holds one filter per 2 KiB of data "
        "blocks, sized by that range's keys; use --format leveldb-bloom for one filter");
  }

  Status Hash(ByteSpan key, std::string& line) const override {
    line = std::to_string(BloomHash(key, HashFlavor::kUnsignedTail));
    return Status();
  }

  // Build writes a TableBuilder's table: its keys are stored as given.
  ProbeOptions BuiltProbeOptions() const override {
    LevelDbOptions leveldb;
    leveldb.key_kind = KeyKind::kPlain;
    ProbeOptions options;
    options.family.Set(leveldb);
    return options;
  }

  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys,
               const ProbeOptions& options, std::span<std::uint8_t> answers) const override {
    const LevelDbOptions mine = options.family.Get<LevelDbOptions>();
    TableOpenOptions open;
    open.key_kind = mine.key_kind;
    open.writer = mine.writer;
    open.bloom2_build = FindBloom2Build(mine.basho_build);  // null (x86-64) when not given
    BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table,
                                TableReader::Open(file, std::string(source), open));
    return table.MayContainBatch(keys, answers);
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectTable(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpTable(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpTable(dump, source);
  }
};

}  // namespace

const FormatCodec* TableFormatCodec() {
  static const TableFormat format;
  return &format;
}

}  // namespace bloomcodec::leveldb
