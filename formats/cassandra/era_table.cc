// The one dispatch from an era to its codec: each row of the era table makes its era's codec.
#include "cassandra/era_table.h"

#include <array>

namespace bloomcodec::cassandra {
namespace {

// Every era's codec, made on first use, in the table's order.
const std::array<std::unique_ptr<FormatCodec>, kEraCount>& Codecs() {
  static const std::array<std::unique_ptr<FormatCodec>, kEraCount> codecs = [] {
    std::array<std::unique_ptr<FormatCodec>, kEraCount> made;
    for (const EraFacts& e : kEras) made[EraIndex(e.era)] = e.make_codec(e.era);
    return made;
  }();
  return codecs;
}

}  // namespace

const FormatCodec* Codec(Era era) { return Codecs()[EraIndex(era)].get(); }

std::optional<Era> EraOf(const FormatCodec* codec) {
  for (const EraFacts& e : kEras) {
    if (Codec(e.era) == codec) return e.era;
  }
  return std::nullopt;
}

std::span<const FormatCodec* const> Formats() {
  static const std::array<const FormatCodec*, kEraCount> formats = [] {
    std::array<const FormatCodec*, kEraCount> all{};
    for (const EraFacts& e : kEras) all[EraIndex(e.era)] = Codec(e.era);
    return all;
  }();
  return formats;
}

}  // namespace bloomcodec::cassandra
