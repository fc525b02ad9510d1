// The Cassandra family's registration with the engines. Internal to the library. Its formats are
// the eras of the era table (era_table.h: Formats(), Codec(Era), EraOf).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "bloomcodec/format.h"
#include "cassandra/era_table.h"
#include "engine/family.h"

namespace bloomcodec::cassandra {

const engine::Family& TheFamily();

// The conversion rules (convert.cc), verify hooks (verify_plan.cc) and own flags (flags.cc) the
// family registers.
std::span<const engine::ConversionRule> ConversionRules();
engine::FamilyVerify VerifyHooks();
engine::OwnFlags Flags();
Result<std::unique_ptr<KeyStream>> IndexKeys(const std::string& path,
                                             const FormatCodec* filter_format);

}  // namespace bloomcodec::cassandra
