// The Pebble family: its formats, declared once, and its registration with the engines.
// Internal to the library.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "engine/family.h"

namespace bloomcodec::pebble {

// The family's formats; the command-line names are their codecs' name().
enum class FormatId {
  kBloom,       // pebble-bloom
  kBinaryFuse,  // pebble-binaryfuse
  kTable,       // pebble-table
};

const FormatCodec* Codec(FormatId id);
// In the order of the command-line contract.
std::span<const FormatCodec* const> Formats();

const engine::Family& TheFamily();

// The family's conversion rules (convert.cc).
std::span<const engine::ConversionRule> ConversionRules();

// The verify hooks (verify_plan.cc) the family registers.
engine::FamilyVerify VerifyHooks();

class RebuildTap;  // table/rebuild_tap.h

// The tasks of a Pebble database directory (database_verify.cc): its MANIFEST's live tables,
// obsolete tables, and the findings of its other files. `tap`: a repair's, handed to each Pebble
// table's verify (may be null).
void PlanDatabaseDirectory(const std::string& dir, std::vector<VerifyTask>& tasks,
                           std::shared_ptr<RebuildTap> tap = nullptr);

// The codec of pebble-table (table/format_codecs.cc).
const FormatCodec* TableCodec();

}  // namespace bloomcodec::pebble
