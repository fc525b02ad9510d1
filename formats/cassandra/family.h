// The Cassandra family: its formats, declared once, and its registration with the engines.
// Internal to the library.
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/format.h"
#include "engine/family.h"

namespace bloomcodec::cassandra {

// The family's formats; the command-line names are their codecs' name().
enum class FormatId {
  kV10,          // cassandra-1.0: Filter.db of versions f .. hf (0.7 - 1.1)
  kLegacy,       // cassandra-legacy: Filter.db of versions c .. e
  kJavaStrings,  // cassandra-0.6: Filter.db of versions before c (keys hashed as Java Strings)
  kV10Row,       // cassandra-1.0-row: the column filter at the start of a 1.0 row
  kMurmur3V12,   // cassandra-1.2: versions ia .. lb
  kMurmur3V30,   // cassandra-3.0: versions ma .. me
  kMurmur3V40,   // cassandra-4.0: versions na .. oa and BTI da
};

const FormatCodec* Codec(FormatId id);
// The cassandra-0.6 codec (v06/format_codecs.cc).
const FormatCodec* JavaStringCodec();
// In the order of the command-line contract.
std::span<const FormatCodec* const> Formats();
// The Murmur3 layout of a format; nullopt for the formats before 1.2.
std::optional<Murmur3Layout> Murmur3LayoutOf(const FormatCodec* format);

const engine::Family& TheFamily();

// The conversion rules (convert.cc) and verify hooks (verify_plan.cc) the family registers.
std::span<const engine::ConversionRule> ConversionRules();
engine::FamilyVerify VerifyHooks();
Result<std::unique_ptr<KeyStream>> IndexKeys(const std::string& path,
                                             const FormatCodec* filter_format);

}  // namespace bloomcodec::cassandra
