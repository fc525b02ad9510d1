// The Cassandra family's conversions: a 1.0 filter with or without a row's length prefix, and
// one Murmur3 bit set in its 3.x and 4.0 serializations.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/input_file.h"
#include "cassandra/descriptor.h"
#include "cassandra/index_db.h"
#include "cassandra/index_key_stream.h"
#include "codec/byte_writer.h"
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {
namespace {

using engine::ConvertCall;
using engine::OneFile;

// cassandra-1.0 -> cassandra-1.0-row: the i32 length prefix of a row added.
Result<std::optional<Conversion>> AddRowPrefix(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Parse(call.bytes, call.input.source));
  ByteSpan filter = f.serialized();
  ByteVector out;
  out.reserve(4 + filter.size());
  ByteWriter(out).PutBigI32(static_cast<std::int32_t>(filter.size()));
  out.insert(out.end(), filter.begin(), filter.end());
  Conversion c = OneFile(ConversionKind::kLossless, std::move(out));
  if (f.trailing_bytes() > 0) {
    c.warnings.push_back(std::to_string(f.trailing_bytes()) +
                         " bytes after the filter (ignored by Cassandra) are not carried over");
  }
  return std::make_optional(std::move(c));
}

// cassandra-1.0-row -> cassandra-1.0: the row's filter without its length prefix.
Result<std::optional<Conversion>> DropRowPrefix(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(call.bytes, call.input.source));
  ByteSpan filter = row.v10()->serialized();
  Conversion c = OneFile(ConversionKind::kLossless, ByteVector(filter.begin(), filter.end()));
  const std::uint64_t dropped = call.bytes.size() - filter.size() - 4;
  if (dropped > 0) {
    c.warnings.push_back(std::to_string(dropped) +
                         " bytes of the row after the filter (ignored by "
                         "Cassandra) are not carried over");
  }
  return std::make_optional(std::move(c));
}

// cassandra-3.0 <-> cassandra-4.0: one bit set (new index order) in its two serializations.
Result<std::optional<Conversion>> Reserialize(const ConvertCall& call) {
  const Era from = *EraOf(call.from);
  const Era to = *EraOf(call.options.to);
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f,
                              Murmur3Filter::Parse(call.bytes, call.input.source, from));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out,
                              SwapMurmur3Serialization(call.bytes, call.input.source, from, to));
  Conversion c = OneFile(ConversionKind::kLossless, std::move(out));
  if (f.trailing_bytes() > 0) {
    c.warnings.push_back(std::to_string(f.trailing_bytes()) +
                         " bytes after the filter (ignored by Cassandra) are not carried over");
  }
  return std::make_optional(std::move(c));
}

}  // namespace

// The keys of a Cassandra Index.db, decoded as the SSTable version in its name says (before
// "e", RandomPartitioner's "<token>:<key>" form; from "ia" on, the row index entry of 1.2 or of
// 3.0+). Without a version in the name, the filter's format says which entry layout.
Result<std::unique_ptr<KeyStream>> IndexKeys(const std::string& path,
                                             const FormatCodec* filter_format) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile file, InputFile::Open(path));
  std::string_view name = file.path();
  if (name.ends_with(".gz")) name.remove_suffix(3);
  Result<Descriptor> d = ParseDescriptor(name);
  const std::optional<Era> era = EraOf(filter_format);
  // The 0.6 filter holds each entry's whole String (the disk form): no token is cut off.
  const bool java_strings = era && Facts(*era).hash == KeyHash::kMurmur2x32JavaString;
  const IndexKeyForm form = !java_strings && d.ok() && d->sstable_format.empty()
                                ? IndexKeyFormFor(d->version, file.bytes())
                                : IndexKeyForm::kRaw;
  // A name without a (BIG) version: the entries of the filter's era, as its first version has
  // them.
  IndexEntryForm entries = IndexEntryForm::kPositionOnly;
  if (d.ok() && d->sstable_format != "bti") {
    entries = IndexEntryFormForVersion(d->version);
  } else if (era) {
    entries = IndexEntryFormForVersion(Facts(*era).first_version);
  }
  return std::unique_ptr<KeyStream>(std::make_unique<IndexDbKeyStream>(
      std::move(file), form, entries, java_strings ? JavaStrings::kUtf8 : JavaStrings::kNone));
}

std::span<const engine::ConversionRule> ConversionRules() {
  using engine::When;
  const FormatCodec* v10 = Codec(Era::kV10);
  const FormatCodec* row = Codec(Era::kV10Row);
  const FormatCodec* v30 = Codec(Era::kV30);
  const FormatCodec* v40 = Codec(Era::kV40);
  constexpr ConversionKind kLossless = ConversionKind::kLossless;
  static const engine::ConversionRule rules[] = {
      {v10, row, kLossless, When::kBitsCarryOver, AddRowPrefix, "the row's length prefix added"},
      {row, v10, kLossless, When::kBitsCarryOver, DropRowPrefix, "the row's length prefix removed"},
      {v30, v40, kLossless, When::kBitsCarryOver, Reserialize, "each 8-byte word reversed"},
      {v40, v30, kLossless, When::kBitsCarryOver, Reserialize, "each 8-byte word reversed"},
  };
  return rules;
}

}  // namespace bloomcodec::cassandra
