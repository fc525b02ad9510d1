// The LevelDB family: its formats, declared once, and its registration with the engines.
// Internal to the library.
#pragma once

#include <span>

#include "bloomcodec/format.h"
#include "engine/family.h"

namespace bloomcodec::leveldb {

// The family's formats; the command-line names are their codecs' name().
enum class FormatId {
  kBloom,           // leveldb-bloom
  kBloomLegacy,     // leveldb-bloom-legacy
  kGoLevelDbBloom,  // goleveldb-bloom
  kFilterBlock,     // leveldb-filter-block
  kTable,           // leveldb-table
};

const FormatCodec* Codec(FormatId id);
// In the order of the command-line contract.
std::span<const FormatCodec* const> Formats();

const engine::Family& TheFamily();

// The conversion rules (convert.cc), verify hooks (verify_plan.cc) and own flags (flags.cc) the
// family registers.
std::span<const engine::ConversionRule> ConversionRules();
engine::FamilyVerify VerifyHooks();
engine::OwnFlags Flags();
Result<KeyList> TableKeys(const FormatCodec* format, ByteSpan bytes, std::string_view source,
                          const FamilyOptions& options);

}  // namespace bloomcodec::leveldb
