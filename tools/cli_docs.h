// The parts of docs/cli.md that are made from the flag declarations (command_flags.h for the
// command line's own flags, bloomcodec/flags.h for the families'), like the help: the usage
// lines and the flag tables. scripts/update-cli-docs rewrites them; tests/cli fails when the
// file differs from what the declarations give.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::string updated, UpdateCliDocs(ReadFile("docs/cli.md")));
//
// A generated part sits between two marker lines, which are kept:
//   <!-- generated NAME: scripts/update-cli-docs writes what follows -->
//   ...
//   <!-- end of generated NAME -->
// NAME is "invocation", "synopsis SUBCOMMAND" (one per subcommand), "flags" or "family flags".
#pragma once

#include <string>
#include <string_view>

#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// The content of one generated part; empty for an unknown NAME.
std::string GeneratedPart(std::string_view name);
// `doc` with every generated part made anew. InvalidArgument for a part of an unknown name, one
// without its end marker, or when a part of a known name is missing.
Result<std::string> UpdateCliDocs(std::string_view doc);

}  // namespace bloomcodec::tool
