// The flags of the command line, declared once: its own (those every format shares) here, and
// each format family's in the family's folder (bloomcodec/flags.h). Parsing, help and the flag
// tables of docs/cli.md are made from these declarations, so they cannot disagree.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kProbe)));
//   BLOOMCODEC_ASSIGN_OR_RETURN(options.family, ReadFamilyOptions(args, Subcommand::kProbe));
#pragma once

#include <span>
#include <string>
#include <vector>

#include "args.h"
#include "bloomcodec/flags.h"

namespace bloomcodec::tool {

// The command line's own flags, in the order of help and docs.
std::span<const FlagDecl> CommandFlags();
// What `subcommand` takes: its own flags, then every family flag declared for it (a name that
// several families declare, once).
std::vector<FlagSpec> SubcommandFlags(Subcommand subcommand);
// The family flags given in `args`, in the order given, read by the families that declare them.
Result<FamilyOptions> ReadFamilyOptions(const Args& args, Subcommand subcommand);

}  // namespace bloomcodec::tool
