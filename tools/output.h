// Writing to standard output in one go, and the JSON documents of `--json`.
//
//   std::string out;            // built up by the subcommand, one buffer for all lines
//   out += "1\n";
//   BLOOMCODEC_RETURN_IF_ERROR(WriteStdout(out));
//
// Only tools/ and tests include nlohmann/json: the library's interface stays free of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// The schema_version of repair's --json document (docs/schema/; verify's, inspect's and convert's
// are the library's: engine/verify_report.cc, verify_plan.cc, convert.cc). Additive changes keep a version; a field removed, renamed or
// retyped raises it (docs/cli.md, "JSON").
inline constexpr int kRepairJsonSchemaVersion = 1;

// Writes all of `text` to file descriptor 1, retrying short writes; an error names <stdout>.
Status WriteStdout(std::string_view text);

// Serialises `doc` (indented, newline-terminated) and writes it. Strings that are not valid
// UTF-8 (file names are bytes) are written with U+FFFD instead of failing.
Status WriteJson(const nlohmann::ordered_json& doc);

}  // namespace bloomcodec::tool
