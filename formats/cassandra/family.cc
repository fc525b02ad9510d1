// The Cassandra family's registration: its formats, conversions, verify hooks, key sources and
// flags.
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {

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
      .flags = Flags(),
  };
  return family;
}

}  // namespace bloomcodec::cassandra
