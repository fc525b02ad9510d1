// The Pebble family's registration: its formats, conversions (convert.cc) and verify hooks. It has
// no key sources or flags of its own yet.
#include "formats/pebble/family.h"

#include "pebble/format_codecs.h"

namespace bloomcodec::pebble {

const FormatCodec* Codec(FormatId id) {
  switch (id) {
    case FormatId::kBloom: return BloomCodec();
    case FormatId::kBinaryFuse: return BinaryFuseCodec();
    case FormatId::kTable: return TableCodec();
  }
  return nullptr;
}

std::span<const FormatCodec* const> Formats() {
  static const FormatCodec* const formats[] = {
      Codec(FormatId::kBloom), Codec(FormatId::kBinaryFuse), Codec(FormatId::kTable)};
  return formats;
}

const engine::Family& TheFamily() {
  static const engine::Family family{
      .name = "pebble",
      .formats = Formats(),
      .conversions = ConversionRules(),
      .verify = VerifyHooks(),
      .keys = {},
      .flags = {},
  };
  return family;
}

}  // namespace bloomcodec::pebble
