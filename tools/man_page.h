// bloomcodec(1), the man page, made at build time (tools/CMakeLists.txt) from the sources of the
// help and of docs/cli.md's generated parts: the usage lines, what each subcommand does, the flag
// declarations (command_flags.h and the families'), the formats and conversions of the registry.
// The prose the help does not carry (exit status, findings) is read from docs/cli.md itself,
// the one place it is written. Internal to the command line; not installed.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::string roff, ManPage(ReadFile("docs/cli.md"), "0.1.0"));
#pragma once

#include <string>
#include <string_view>

#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// The page in roff (man macros). InvalidArgument when `cli_md` lacks a section the page takes
// from it ("Exit status and errors", "Findings"), naming it.
Result<std::string> ManPage(std::string_view cli_md, std::string_view version);

// `markdown` (paragraphs, bullet lists, tables, inline code and emphasis, links) as roff body
// text; tables become one tagged paragraph per row (first cell the tag). Exposed for its test.
std::string MarkdownToRoff(std::string_view markdown);

}  // namespace bloomcodec::tool
