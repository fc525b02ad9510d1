// The family flags (bloomcodec/flags.h): collected from the families' registrations, parsed by
// the families that declare them, and checked against the file they are given for. No flag is
// known here by name.
#include "bloomcodec/flags.h"

#include <string>

#include "engine/family.h"

namespace bloomcodec {
namespace {

bool Declares(const FlagDecl& decl, std::string_view name, Subcommand subcommand) {
  return decl.name == name && decl.subcommands.has(subcommand);
}

bool Lists(const FlagDecl& decl, const FormatCodec* format) {
  for (const FormatCodec* f : decl.formats) {
    if (f == format) return true;
  }
  return false;
}

bool AppliesTo(const FlagDecl& decl, const FlagTarget& target) {
  if (!Lists(decl, target.format)) return false;
  return !decl.rewrite_only || target.to == target.format;
}

}  // namespace

std::string_view SubcommandName(Subcommand subcommand) {
  switch (subcommand) {
    case Subcommand::kBuild: return "build";
    case Subcommand::kProbe: return "probe";
    case Subcommand::kHash: return "hash";
    case Subcommand::kSize: return "size";
    case Subcommand::kInspect: return "inspect";
    case Subcommand::kVerify: return "verify";
    case Subcommand::kConvert: return "convert";
    case Subcommand::kDump: return "dump";
    case Subcommand::kRepair: return "repair";
  }
  return "";
}

Result<KeyKind> ParseKeyKindFlag(std::string_view value) {
  static constexpr FlagChoice<KeyKind> kKinds[] = {{"user", KeyKind::kUser},
                                                   {"plain", KeyKind::kPlain}};
  return ParseFlagChoice<KeyKind>("--key-kind", value, kKinds);
}

std::vector<FamilyFlag> FamilyFlags() {
  std::vector<FamilyFlag> all;
  for (const engine::Family* family : engine::Families()) {
    for (const FlagDecl& decl : family->flags.declared) all.push_back({family->name, &decl});
  }
  return all;
}

std::vector<FamilyFlag> FamilyFlags(Subcommand subcommand) {
  std::vector<FamilyFlag> flags;
  for (const FamilyFlag& f : FamilyFlags()) {
    if (f.decl->subcommands.has(subcommand)) flags.push_back(f);
  }
  return flags;
}

Status ParseFamilyFlag(Subcommand subcommand, std::string_view name, std::string_view value,
                       FamilyOptions& options) {
  bool declared = false;
  for (const FamilyFlag& f : FamilyFlags(subcommand)) {
    if (!Declares(*f.decl, name, subcommand)) continue;
    declared = true;
    BLOOMCODEC_RETURN_IF_ERROR(f.decl->parse(value, options));
  }
  if (!declared) return Status::InvalidArgument("unknown flag " + std::string(name));
  return Status();
}

Status CheckFamilyFlags(Subcommand subcommand, const FamilyOptions& options,
                        const FlagTarget& target) {
  const std::vector<FamilyFlag> flags = FamilyFlags(subcommand);
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const FlagDecl& decl = *flags[i].decl;
    if (!decl.is_set(options)) continue;
    // A name several families declare is judged once, at its first declaration: it applies
    // where any of them applies, and is refused in the first one's words.
    bool seen = false;
    bool applies = false;
    for (std::size_t j = 0; j < flags.size(); ++j) {
      if (flags[j].decl->name != decl.name) continue;
      if (j < i) seen = true;
      if (AppliesTo(*flags[j].decl, target)) applies = true;
    }
    if (seen || applies || !decl.refuse) continue;
    const std::string_view what = target.what.empty() ? target.format->name() : target.what;
    BLOOMCODEC_RETURN_IF_ERROR(decl.refuse({target.path, what, false}));
  }
  return Status();
}

}  // namespace bloomcodec
