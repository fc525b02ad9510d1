// The three on-disk layouts of the Murmur3 Filter.db of Cassandra 1.2 - 5.0 and their names on
// the command line: the one vocabulary for them (descriptor.h says which versions use which,
// murmur3_filter.h reads and writes them, the formats and verify name them through this table).
//
//   LayoutFormatName(Murmur3Layout::kRawBytes)     // "cassandra-4.0"
//   LayoutForFormatName("cassandra-3.0")           // Murmur3Layout::kNewOrderLongs
//   LayoutForFormatName("cassandra-1.0")           // nullopt: not a Murmur3 format
#pragma once

#include <optional>
#include <string_view>

namespace bloomcodec::cassandra {

enum class Murmur3Layout {
  kOldOrderLongs,  // cassandra-1.2: versions ia .. lb (old index order, big-endian longs)
  kNewOrderLongs,  // cassandra-3.0: versions ma .. me (new index order, big-endian longs)
  kRawBytes,       // cassandra-4.0: versions na, nb, nc, oa and BTI da (new order, raw bytes)
};

struct Murmur3LayoutName {
  Murmur3Layout layout;
  std::string_view format_name;
};

// Every layout with its command-line format name, in version order.
inline constexpr Murmur3LayoutName kMurmur3LayoutNames[] = {
    {Murmur3Layout::kOldOrderLongs, "cassandra-1.2"},
    {Murmur3Layout::kNewOrderLongs, "cassandra-3.0"},
    {Murmur3Layout::kRawBytes, "cassandra-4.0"},
};

// The format name of the command line ("cassandra-1.2", "cassandra-3.0", "cassandra-4.0").
constexpr std::string_view LayoutFormatName(Murmur3Layout layout) {
  for (const Murmur3LayoutName& n : kMurmur3LayoutNames) {
    if (n.layout == layout) return n.format_name;
  }
  return "?";
}

// The inverse: the layout of a Murmur3 format name, nullopt for any other name.
constexpr std::optional<Murmur3Layout> LayoutForFormatName(std::string_view format_name) {
  for (const Murmur3LayoutName& n : kMurmur3LayoutNames) {
    if (n.format_name == format_name) return n.layout;
  }
  return std::nullopt;
}

}  // namespace bloomcodec::cassandra
