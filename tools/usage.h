// Help texts of the command line and the usage errors that point at them.
#pragma once

#include <string>
#include <string_view>

#include "bloomcodec/flags.h"
#include "bloomcodec/format.h"
#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// "bloomcodec --help": every subcommand and every format.
std::string OverviewHelp();
// "bloomcodec help build"; empty when `subcommand` is unknown.
std::string SubcommandHelp(std::string_view subcommand);
// The usage line of a subcommand, "build --format F ... [--json]", with the family flags it
// takes as their families declare them.
std::string Synopsis(Subcommand subcommand);
// What the tool is, after "bloomcodec: " (help's first lines, the man page's NAME).
std::string_view Summary();
// How key files are read (help, the man page).
std::string_view KeyFilesHelp();
// What a subcommand does, as its help says it (lines of at most 92 columns); empty if unknown.
std::string_view SubcommandDetails(Subcommand subcommand);
// "cassandra-1.0, cassandra-legacy, ..." in registry order.
std::string FormatNameList();

// The format named by --format, or a usage error listing every name.
Result<const FormatCodec*> FormatByName(std::string_view name);
// The usage error for a subcommand that needs --format and did not get one.
Status MissingFormat(std::string_view why);

}  // namespace bloomcodec::tool
