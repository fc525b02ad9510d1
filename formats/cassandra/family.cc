// The Cassandra family's registration: its formats, conversions, verify hooks and key sources.
#include "formats/cassandra/family.h"

#include "cassandra/murmur3/inspect.h"

namespace bloomcodec::cassandra {

std::optional<Murmur3Layout> Murmur3LayoutOf(const FormatCodec* format) {
  for (const Murmur3LayoutName& n : kMurmur3LayoutNames) {
    if (Murmur3Codec(n.layout) == format) return n.layout;
  }
  return std::nullopt;
}

const engine::Family& TheFamily() {
  static const engine::Family family{
      .name = "cassandra",
      .formats = Formats(),
      .conversions = ConversionRules(),
      .verify = VerifyHooks(),
      .keys = {.tables = {},
               .table_keys = nullptr,
               .index_keys = IndexKeys,
               .index_hint = " (or --index INDEX_DB, the SSTable's Index.db)"},
  };
  return family;
}

}  // namespace bloomcodec::cassandra
