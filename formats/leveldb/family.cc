// The LevelDB family's registration: its formats, conversions, verify hooks, key sources and
// flags.
#include "formats/leveldb/family.h"

namespace bloomcodec::leveldb {

const engine::Family& TheFamily() {
  static const FormatCodec* const tables[] = {Codec(FormatId::kTable)};
  static const engine::Family family{
      .name = "leveldb",
      .formats = Formats(),
      .conversions = ConversionRules(),
      .verify = VerifyHooks(),
      .keys = {.tables = tables, .table_keys = TableKeys, .index_keys = nullptr, .index_hint = {}},
      .flags = Flags(),
  };
  return family;
}

}  // namespace bloomcodec::leveldb
