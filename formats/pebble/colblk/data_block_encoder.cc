#include "pebble/colblk/data_block_encoder.h"

#include <algorithm>
#include <string>

#include "pebble/colblk/block.h"
#include "pebble/colblk/data_block.h"

namespace bloomcodec::pebble::colblk {

namespace {

std::uint64_t LoadBE(ByteSpan b, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | b[i];
  return v;
}

}  // namespace

Result<DataBlockEncoder> DataBlockEncoder::Make(const KeySchema& schema, bool tiering) {
  if (schema.kind == KeySchemaKind::kDefault && schema.comparer == KeyComparer::kUnknown) {
    return Status::Unsupported("cannot write key schema " + schema.name + ": the comparer " +
                               schema.comparer_name + "'s Split and order are not implemented");
  }
  return DataBlockEncoder(schema, tiering);
}

DataBlockEncoder::DataBlockEncoder(const KeySchema& schema, bool tiering)
    : kind_(schema.kind),
      comparer_(schema.comparer),
      header_size_(schema.header_size()),
      key_columns_(schema.key_columns()),
      tiering_(tiering),
      prefixes_(schema.bundle_size) {}

void DataBlockEncoder::Reset() {
  rows_ = 0;
  max_key_length_ = 0;
  last_key_.clear();
  last_trailer_ = 0;
  prefixes_.Reset();
  suffixes_.Reset();
  wall_.Reset();
  logical_.Reset();
  suffix_types_ = 0;
  trailers_.Reset();
  prefix_same_.Reset();
  values_.Reset();
  external_.Reset();
  obsolete_.Reset();
  span_ids_.Reset();
  attributes_.Reset();
  secondary_.Reset();
}

Status DataBlockEncoder::CheckOrder(const DataBlockRow& row) const {
  if (rows_ == 0) return Status();
  const int c = CompareUserKeys(comparer_, row.user_key, ByteSpan(last_key_));
  if (c > 0 || (c == 0 && row.trailer < last_trailer_)) return Status();
  return Status::InvalidArgument(
      "pebble data block: keys must be added in strictly increasing order (row " +
      std::to_string(rows_) + " is not after the row before)");
}

Status DataBlockEncoder::Add(const DataBlockRow& row) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOrder(row));
  if (row.external_prefix && (*row.external_prefix & 0xc0) == 0) {
    return Status::InvalidArgument(
        "pebble data block: an external value needs a value prefix "
        "naming a value block or blob handle, not " +
        HexByte(*row.external_prefix));
  }
  const ByteSpan key = row.user_key;
  const std::size_t prefix_length = SplitUserKey(comparer_, key);
  bool prefix_same = false;
  if (kind_ == KeySchemaKind::kDefault) {
    const ByteSpan prefix = key.first(prefix_length);
    if (rows_ == 0) {
      prefix_same = prefix.empty();
    } else {
      // Pebble's PrefixEqual: the common prefix with the previous prefix is the whole prefix.
      const ByteSpan previous = prefixes_.Get(rows_ - 1);
      prefix_same = prefix.size() <= previous.size() &&
                    std::equal(prefix.begin(), prefix.end(), previous.begin());
    }
    prefixes_.Put(prefix);
    suffixes_.Put(key.subspan(prefix_length));
  } else {
    if (key.empty() || !cockroach::ValidEngineKey(key) || key[prefix_length - 1] != 0) {
      return Status::InvalidArgument(
          "crdb1 data block: a CockroachDB engine key (roach key, 0x00, [version, version "
          "length + 1]) at row " +
          std::to_string(rows_));
    }
    if (rows_ > 0) {
      const ByteSpan roach = key.first(prefix_length - 1);
      const ByteSpan previous = prefixes_.Get(rows_ - 1);
      prefix_same = roach.size() == previous.size() &&
                    std::equal(roach.begin(), roach.end(), previous.begin());
    }
    BLOOMCODEC_RETURN_IF_ERROR(WriteCrdb1Key(key, prefix_length));
  }
  if (rows_ == 0 && row.first_prefix_changed) prefix_same = !*row.first_prefix_changed;
  if (prefix_same) prefix_same_.Set(rows_);
  if (row.obsolete) obsolete_.Set(rows_);
  trailers_.Set(rows_, row.trailer);
  if (row.external_prefix) {
    external_.Set(rows_);
    const std::uint8_t prefix = *row.external_prefix;
    values_.PutConcat(ByteSpan(&prefix, 1), row.value);
  } else {
    values_.Put(row.value);
  }
  if (tiering_) {
    if (row.tiering.set) {
      span_ids_.Set(rows_, row.tiering.span_id);
      attributes_.Set(rows_, row.tiering.attribute);
    }
    secondary_.Put(row.secondary_blob_handle);
  }
  max_key_length_ =
      std::max<std::uint32_t>(max_key_length_, static_cast<std::uint32_t>(key.size()));
  last_key_.assign(key.begin(), key.end());
  last_trailer_ = row.trailer;
  ++rows_;
  return Status();
}

Status DataBlockEncoder::WriteCrdb1Key(ByteSpan key, std::size_t prefix_length) {
  prefixes_.Put(key.first(prefix_length - 1));
  const std::size_t version_length = key.back();
  const ByteSpan version = key.subspan(prefix_length);
  std::uint64_t wall = 0;
  ByteSpan untyped;
  switch (version_length) {
    case 0: suffix_types_ |= kCrdb1EmptySuffixes; break;
    case 9:
      suffix_types_ |= kCrdb1MvccSuffixes;
      wall = LoadBE(version, 8);
      break;
    case 13:
    case 14:
      suffix_types_ |= kCrdb1MvccSuffixes;
      wall = LoadBE(version, 8);
      logical_.Set(rows_, LoadBE(version.subspan(8), 4));
      break;
    default:
      suffix_types_ |= kCrdb1NonMvccSuffixes;
      untyped = version.first(version.size() - 1);
      break;
  }
  wall_.Set(rows_, wall);
  suffixes_.Put(untyped);
  return Status();
}

std::uint32_t DataBlockEncoder::KeyColumnsSize(std::uint32_t rows, std::uint32_t offset) const {
  offset = prefixes_.Size(rows, offset);
  if (kind_ == KeySchemaKind::kCrdb1) {
    offset = wall_.Size(rows, offset);
    offset = logical_.Size(rows, offset);
  }
  return suffixes_.Size(rows, offset);
}

std::uint32_t DataBlockEncoder::Size(std::uint32_t rows) const {
  const int columns =
      key_columns_ + (tiering_ ? kDataColumnsWithTiering : kDataColumnsWithoutTiering);
  std::uint32_t off = HeaderSize(columns, header_size_ + kDataBlockCustomHeaderSize);
  off = KeyColumnsSize(rows, off);
  off = trailers_.Size(rows, off);
  off = BitmapBuilder::InvertedSize(rows, off);
  off = values_.Size(rows, off);
  off = external_.Size(rows, off);
  off = obsolete_.Size(rows, off);
  if (tiering_) {
    off = span_ids_.Size(rows, off);
    off = attributes_.Size(rows, off);
    off = secondary_.Size(rows, off);
  }
  return off + 1;
}

void DataBlockEncoder::WriteColumns(std::uint32_t rows, BlockWriter& w) {
  std::uint8_t* buf = w.data();
  w.EndColumn(prefixes_.Finish(rows, w.BeginColumn(DataType::kPrefixBytes), buf));
  if (kind_ == KeySchemaKind::kCrdb1) {
    w.EndColumn(wall_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
    w.EndColumn(logical_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
  }
  w.EndColumn(suffixes_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(trailers_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
  w.EndColumn(prefix_same_.Finish(rows, w.BeginColumn(DataType::kBool), buf));
  w.EndColumn(values_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(external_.Finish(rows, w.BeginColumn(DataType::kBool), buf));
  w.EndColumn(obsolete_.Finish(rows, w.BeginColumn(DataType::kBool), buf));
  if (tiering_) {
    w.EndColumn(span_ids_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
    w.EndColumn(attributes_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
    w.EndColumn(secondary_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  }
}

Result<ByteVector> DataBlockEncoder::Finish(std::uint32_t rows) {
  if (rows > rows_ || rows + 1 < rows_) {
    return Status::InvalidArgument("pebble data block: Finish takes the rows added (" +
                                   std::to_string(rows_) + ") or one fewer, not " +
                                   std::to_string(rows));
  }
  const std::uint32_t size = Size(rows);
  prefix_same_.Invert(rows);
  const int columns =
      key_columns_ + (tiering_ ? kDataColumnsWithTiering : kDataColumnsWithoutTiering);
  ByteVector out;
  BlockWriter w(out, size, static_cast<std::uint16_t>(columns), rows,
                header_size_ + kDataBlockCustomHeaderSize);
  if (kind_ == KeySchemaKind::kCrdb1) out[0] = suffix_types_;
  StoreLE32(out.data() + header_size_, max_key_length_);
  WriteColumns(rows, w);
  if (!w.Finish()) return Status::Internal("pebble data block: column sizes disagree");
  return out;
}

}  // namespace bloomcodec::pebble::colblk
