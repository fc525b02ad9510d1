// The RocksDB family's registration: its formats, conversions, verify hooks, key sources and
// flags.
#include "formats/rocksdb/family.h"

namespace bloomcodec::rocksdb {

const FormatCodec* Codec(FormatId id) {
  return id == FormatId::kSst ? SstCodec() : FullFilterCodec(id);
}

std::span<const FormatCodec* const> Formats() {
  static const FormatCodec* const formats[] = {Codec(FormatId::kBloomLegacy),
                                               Codec(FormatId::kBloom), Codec(FormatId::kRibbon),
                                               Codec(FormatId::kSst)};
  return formats;
}

const engine::Family& TheFamily() {
  static const FormatCodec* const tables[] = {Codec(FormatId::kSst)};
  static const engine::Family family{
      .name = "rocksdb",
      .formats = Formats(),
      .conversions = ConversionRules(),
      .verify = VerifyHooks(),
      .keys = {.tables = tables, .table_keys = TableKeys, .index_keys = nullptr, .index_hint = {}},
      .flags = Flags(),
  };
  return family;
}

}  // namespace bloomcodec::rocksdb
