// The Cassandra family's registration: its formats, conversions, verify hooks and key sources.
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {

std::optional<Murmur3Layout> Murmur3LayoutOf(const FormatCodec* format) {
  if (format == Codec(FormatId::kMurmur3V12)) return Murmur3Layout::kOldOrderLongs;
  if (format == Codec(FormatId::kMurmur3V30)) return Murmur3Layout::kNewOrderLongs;
  if (format == Codec(FormatId::kMurmur3V40)) return Murmur3Layout::kRawBytes;
  return std::nullopt;
}

const engine::Family& TheFamily() {
  static const engine::Family family{
      .name = "cassandra",
      .formats = Formats(),
      .conversions = ConversionRules(),
      .verify = VerifyHooks(),
      .keys = {.index_keys = IndexKeys,
               .index_hint = " (or --index INDEX_DB, the SSTable's Index.db)"},
  };
  return family;
}

}  // namespace bloomcodec::cassandra
