#include "rocksdb/sst/sst_writer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "blocktable/block_builder.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "codec/byte_writer.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

using blocktable::AppendBlockHandle;
using blocktable::AppendFooter;
using blocktable::BlockBuilder;
using blocktable::BlockHandle;
using blocktable::ChecksumType;
using blocktable::CompareKeys;
using blocktable::Footer;
using blocktable::kBlockBasedTableMagic;
using blocktable::kBlockTrailerSize;
using blocktable::KeyOrder;
using blocktable::StoredBlockChecksum;
using blocktable::TrailerFormatOf;

namespace {

// The tag SstFileWriter gives every key: sequence 0, kTypeValue (1).
constexpr std::uint8_t kTypeValue = 1;

class Writer {
 public:
  explicit Writer(const SstWriteOptions& o) : options_(o) {}

  BlockHandle WriteBlock(ByteSpan contents) {
    BlockHandle h{out_.size(), contents.size()};
    out_.insert(out_.end(), contents.begin(), contents.end());
    const std::uint8_t type = 0;
    out_.push_back(type);
    ByteWriter(out_).PutLittleU32(StoredBlockChecksum(trailer_, contents, type, h.offset));
    return h;
  }

  void SetTrailer(const blocktable::TrailerFormat& t) { trailer_ = t; }

  ByteVector& out() { return out_; }

 private:
  SstWriteOptions options_;
  blocktable::TrailerFormat trailer_;
  ByteVector out_;
};

ByteVector Fixed32(std::uint32_t v) {
  ByteVector b;
  ByteWriter(b).PutLittleU32(v);
  return b;
}

ByteVector Text(std::string_view s) { return ByteVector(s.begin(), s.end()); }

int CompareBytes(ByteSpan a, ByteSpan b) { return CompareKeys(KeyOrder::kBytewise, a, b); }

// The format_version the options ask for, once the keys and options are checked.
Result<std::uint32_t> CheckedFormatVersion(const KeyList& user_keys, const KeyList* values,
                                           const SstWriteOptions& options) {
  if (values != nullptr && values->size() != user_keys.size()) {
    return Status::InvalidArgument("WriteSst: one value per key");
  }
  if (user_keys.empty()) {
    // SstFileWriter::Finish refuses an empty file too.
    return Status::InvalidArgument(
        "an SST needs at least one key (RocksDB's SstFileWriter "
        "refuses to finish an empty file)");
  }
  if (options.block_size == 0 || options.restart_interval < 1) {
    return Status::InvalidArgument("WriteSst: block_size and restart_interval must be positive");
  }
  for (std::size_t i = 1; i < user_keys.size(); ++i) {
    if (CompareBytes(user_keys[i - 1], user_keys[i]) >= 0) {
      return Status::InvalidArgument("WriteSst: keys must be strictly increasing bytewise (key " +
                                     std::to_string(i) + ")");
    }
  }
  const std::uint32_t format_version = options.format_version.value_or(
      options.block_based_filter || options.filter == FilterEncoding::kLegacyBloom ? 4 : 5);
  if (format_version > blocktable::kMaxFormatVersion ||
      (format_version == 0 && options.checksum != ChecksumType::kCrc32c) ||
      (format_version >= blocktable::kContextChecksumFormatVersion &&
       options.base_context_checksum == 0)) {
    return Status::InvalidArgument(
        "WriteSst: format_version 0..7, 0 (LevelDB's footer) only with CRC32c, 6 and 7 with a "
        "base context checksum other than 0");
  }
  if (options.block_based_filter && !(options.bits_per_key >= 0 && options.bits_per_key < 1e6)) {
    return Status::InvalidArgument("WriteSst: bits_per_key out of range for a block-based filter");
  }
  return format_version;
}

// What the table's data part (data blocks, filter block, index block) leaves for the rest.
struct DataPart {
  std::uint64_t data_size = 0;
  std::uint64_t data_blocks = 0;
  std::uint64_t raw_key_size = 0;
  std::uint64_t raw_value_size = 0;
  std::uint64_t filter_size = 0;
  std::uint64_t index_size = 0;  // with its trailer, as rocksdb.index.size counts it
  BlockHandle filter;
  BlockHandle index;
};

// The data blocks (each key with sequence 0 and type value, as SstFileWriter adds it), the
// filter block, then the index block.
Result<DataPart> WriteDataPart(Writer& w, const KeyList& user_keys, const KeyList* values,
                               const SstWriteOptions& options) {
  ByteVector filter;
  std::optional<leveldb::FilterBlockBuilder> block_filter;
  if (options.block_based_filter) {
    // 6.x rounds bits_per_key to whole bits for this filter (millibits + 500) / 1000.
    const int whole = static_cast<int>(std::lround(options.bits_per_key));
    block_filter.emplace(leveldb::BloomPolicy::Legacy117(whole));
    block_filter->StartBlock(0);
  } else if (options.full_filter) {
    filter = *options.full_filter;
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(filter,
                                BuildFullFilter(options.filter, options.bits_per_key, user_keys));
  }
  DataPart part;
  BlockBuilder data(options.restart_interval);
  BlockBuilder index(1);
  ByteVector internal_key;
  ByteVector last_user_key;
  auto flush = [&] {
    const BlockHandle h = w.WriteBlock(data.Finish());
    data.Reset();
    ByteVector handle;
    AppendBlockHandle(h, handle);
    // The block's last user key is a valid separator (RocksDB would shorten it).
    index.Add(last_user_key, handle);
    ++part.data_blocks;
    // As WriteBlock of the table builder: the next keys belong to the filter of the offset
    // where the next data block starts.
    if (block_filter) block_filter->StartBlock(w.out().size());
  };
  for (std::size_t i = 0; i < user_keys.size(); ++i) {
    const ByteSpan key = user_keys[i];
    const ByteSpan value = values ? (*values)[i] : ByteSpan();
    internal_key.assign(key.begin(), key.end());
    internal_key.push_back(kTypeValue);
    internal_key.insert(internal_key.end(), 7, 0);  // sequence 0
    data.Add(internal_key, value);
    if (block_filter) block_filter->AddKey(key);
    part.raw_key_size += internal_key.size();
    part.raw_value_size += value.size();
    last_user_key.assign(key.begin(), key.end());
    if (data.SizeEstimate() >= options.block_size) flush();
  }
  if (!data.empty()) flush();
  part.data_size = w.out().size();

  if (block_filter) filter = block_filter->Finish();
  part.filter = w.WriteBlock(filter);
  part.filter_size = filter.size();
  const ByteSpan finished_index = index.Finish();
  part.index_size = finished_index.size() + kBlockTrailerSize;
  part.index = w.WriteBlock(ByteVector(finished_index.begin(), finished_index.end()));
  return part;
}

// The properties block's entries, sorted by name (a block's keys must increase).
std::map<std::string, ByteVector> PropertiesOf(const SstWriteOptions& options, const DataPart& part,
                                               std::uint64_t keys) {
  std::map<std::string, ByteVector> props;
  props["rocksdb.block.based.table.index.type"] = Fixed32(0);
  props["rocksdb.block.based.table.prefix.filtering"] = Text("0");
  props["rocksdb.block.based.table.whole.key.filtering"] = Text("1");
  props["rocksdb.column.family.id"] = VarintBytes(0x7fffffff);  // unknown, as SstFileWriter records
  props["rocksdb.comparator"] = Text("leveldb.BytewiseComparator");
  props["rocksdb.compression"] = Text("NoCompression");
  props["rocksdb.creating.db.identity"] = Text("bloomcodec");
  props["rocksdb.creation.time"] = VarintBytes(0);
  props["rocksdb.data.size"] = VarintBytes(part.data_size);
  props["rocksdb.deleted.keys"] = VarintBytes(0);
  props["rocksdb.external_sst_file.global_seqno"] = ByteVector(8, 0);
  props["rocksdb.external_sst_file.version"] = Fixed32(2);
  props["rocksdb.filter.policy"] =
      Text(options.policy_name                         ? *options.policy_name
           : options.block_based_filter                ? std::string(kBuiltinFilterName)
           : options.filter == FilterEncoding::kRibbon ? "ribbonfilter"
                                                       : "bloomfilter");
  props["rocksdb.filter.size"] = VarintBytes(part.filter_size);
  props["rocksdb.fixed.key.length"] = VarintBytes(0);
  props["rocksdb.format.version"] = VarintBytes(0);
  props["rocksdb.index.key.is.user.key"] = VarintBytes(1);
  props["rocksdb.index.size"] = VarintBytes(part.index_size);
  props["rocksdb.index.value.is.delta.encoded"] = VarintBytes(0);
  props["rocksdb.merge.operands"] = VarintBytes(0);
  props["rocksdb.num.data.blocks"] = VarintBytes(part.data_blocks);
  props["rocksdb.num.entries"] = VarintBytes(keys);
  props["rocksdb.num.filter_entries"] = VarintBytes(keys);
  props["rocksdb.num.range-deletions"] = VarintBytes(0);
  props["rocksdb.oldest.key.time"] = VarintBytes(0);
  props["rocksdb.raw.key.size"] = VarintBytes(part.raw_key_size);
  props["rocksdb.raw.value.size"] = VarintBytes(part.raw_value_size);
  return props;
}

}  // namespace

Result<ByteVector> WriteSst(const KeyList& user_keys, const KeyList* values,
                            const SstWriteOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint32_t format_version,
                              CheckedFormatVersion(user_keys, values, options));
  Footer footer;
  footer.magic = format_version == 0 ? blocktable::kLevelDbTableMagic : kBlockBasedTableMagic;
  footer.format_version = format_version;
  footer.checksum = options.checksum;
  if (footer.context_checksums()) footer.base_context_checksum = options.base_context_checksum;
  Writer w(options);
  w.SetTrailer(TrailerFormatOf(footer, blocktable::TableFamily::kRocksDb));
  BLOOMCODEC_ASSIGN_OR_RETURN(const DataPart part, WriteDataPart(w, user_keys, values, options));

  BlockBuilder properties(1);
  for (const auto& [name, value] : PropertiesOf(options, part, user_keys.size())) {
    properties.Add(Text(name), value);
  }
  const BlockHandle properties_handle = w.WriteBlock(properties.Finish());

  BlockBuilder metaindex(1);
  ByteVector fh, ph;
  AppendBlockHandle(part.filter, fh);
  AppendBlockHandle(properties_handle, ph);
  const std::string filter_key = (options.block_based_filter ? "filter." : "fullfilter.") +
                                 options.policy_name.value_or(std::string(kBuiltinFilterName));
  metaindex.Add(Text(filter_key), fh);  // "filter...", "fullfilter..." < "rocksdb.*"
  if (footer.context_checksums()) {
    ByteVector ih;  // "rocksdb.index" < "rocksdb.properties"
    AppendBlockHandle(part.index, ih);
    metaindex.Add(Text(blocktable::kIndexMetaBlockName), ih);
  }
  metaindex.Add(Text(kPropertiesBlockName), ph);
  const BlockHandle metaindex_handle = w.WriteBlock(metaindex.Finish());

  footer.metaindex_handle = metaindex_handle;
  if (!footer.context_checksums()) footer.index_handle = part.index;
  AppendFooter(footer, w.out());
  return std::move(w.out());
}

}  // namespace bloomcodec::rocksdb
