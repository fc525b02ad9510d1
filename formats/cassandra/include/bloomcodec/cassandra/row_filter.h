// The column-name bloom filter at the start of every row of a Cassandra 1.0 Data.db
// (ColumnIndexer / IndexHelper.defreezeBloomFilter; removed in 1.2).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector bytes, cassandra::BuildRowFilter(names, names.size()));
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::RowFilter rf, cassandra::RowFilter::Parse(bytes, "Data.db"));
//   rf.filter().MayContain(column_name);
//
// Layout: i32 BE length L, then L bytes holding a serialized filter: the 1.0 Filter.db format
// for sstable versions >= f, the legacy format for older ones.
//
// Compatibility contract: BuildRowFilter writes the bytes ColumnIndexer writes for these names
// and this estimated column count (getFilter(estimated, 4): K = 3, 4 bits per column + 20).
// Parse refuses L <= 0 and L beyond the available bytes, as the original refuses L <= 0 or L
// larger than the row; the filter must fit inside the L bytes (extra bytes inside L are ignored
// as the original ignores them).
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

Result<ByteVector> BuildRowFilter(const KeyList& names, std::int64_t estimated_columns);

class RowFilter {
 public:
  // `bytes` starts at the length prefix; a Data.db row may continue after the filter.
  // `base_offset` is the absolute offset of `bytes` in the file, for messages.
  static Result<RowFilter> Parse(ByteSpan bytes, std::string_view source, bool legacy = false,
                                 std::uint64_t base_offset = 0);

  std::int32_t length_prefix() const { return length_prefix_; }
  // Bytes this filter occupies in the row: 4 + L.
  std::uint64_t consumed_bytes() const { return 4 + static_cast<std::uint64_t>(length_prefix_); }
  bool is_legacy() const { return std::holds_alternative<LegacyFilter>(filter_); }
  const Filter& filter() const;
  const V10Filter* v10() const { return std::get_if<V10Filter>(&filter_); }
  const LegacyFilter* legacy() const { return std::get_if<LegacyFilter>(&filter_); }

 private:
  RowFilter(std::int32_t length, std::variant<V10Filter, LegacyFilter> filter)
      : length_prefix_(length), filter_(std::move(filter)) {}
  std::int32_t length_prefix_;
  std::variant<V10Filter, LegacyFilter> filter_;
};

}  // namespace bloomcodec::cassandra
