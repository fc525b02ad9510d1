// bloomcodec inspect: what a filter file holds and what its fill says, one document per file.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "args.h"
#include "bloomcodec/verify.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"
#include "render.h"

namespace bloomcodec::tool {

namespace {

std::string Field(const Document& v) {
  if (v.is_null()) return "(not said)";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// A database directory for people: its head fields, then per column family one line per level
// and one per table (file, number, size, key range), obsolete files and findings.
void RenderDatabase(const Document& doc, std::string& out) {
  for (const char* name : {"directory", "family", "manifest", "from_manifest", "comparator",
                           "last_sequence", "next_file", "version_edits"}) {
    std::string label = std::string(name) + ":";
    label.resize(std::max<std::size_t>(label.size() + 1, 17), ' ');
    out += label + Field(doc[name]) + "\n";
  }
  for (const Document& cf : doc["column_families"]) {
    out += "column family " + cf["name"].get<std::string>() + ":\n";
    if (cf["levels"].empty()) out += "  (no live tables)\n";
    for (const Document& level : cf["levels"]) {
      out += "  level " + level["level"].dump() + ": " + level["table_count"].dump() + " tables, " +
             level["bytes"].dump() + " bytes\n";
      for (const Document& t : level["tables"]) {
        out +=
            "    " + t["file"].get<std::string>() + "  " + t["size"].dump() + " bytes  " +
            (t["smallest"].get<std::string>().empty() ? "\"\"" : t["smallest"].get<std::string>()) +
            " .. " +
            (t["largest"].get<std::string>().empty() ? "\"\"" : t["largest"].get<std::string>()) +
            (t.contains("missing") ? "  MISSING" : "") + "\n";
      }
    }
  }
  std::string obsolete;
  for (const Document& o : doc["obsolete"]) obsolete += " " + o.get<std::string>();
  if (!obsolete.empty()) out += "obsolete:" + obsolete + "\n";
  for (const Document& f : doc["findings"]) {
    out += f["severity"].get<std::string>() + " " + f["file"].get<std::string>() +
           (f.contains("offset") ? " at byte " + f["offset"].dump() : std::string()) + ": " +
           f["message"].get<std::string>() + "\n";
  }
}
}  // namespace

Status RunInspect(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kInspect)));
  if (args.positionals().empty()) return Status::InvalidArgument("FILE is required");
  const bool json = args.Has("--json");
  Document files = Document::array();
  std::string text;
  for (std::string_view path : args.positionals()) {
    std::error_code ec;
    if (std::filesystem::is_directory(std::string(path), ec)) {
      // A database directory: its levels as CURRENT and the MANIFEST say.
      if (args.Has("--format")) {
        return Status::InvalidArgument(std::string(path) +
                                       " is a directory: --format applies to files");
      }
      BLOOMCODEC_ASSIGN_OR_RETURN(Document doc, InspectDirectory(std::string(path)));
      if (json) {
        files.push_back(std::move(doc));
      } else {
        if (!text.empty()) text += "\n";
        RenderDatabase(doc, text);
      }
      continue;
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(std::string(path)));
    BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, ResolveFormat(args, input));
    Document doc;
    {
      // Counting the bits of a large filter, or walking a large table, takes a moment: one
      // progress item per 16 bytes, so from about 16 MB on (on a terminal only).
      Progress progress(ShouldShowProgress(input.bytes().size() / 16, json));
      progress.Show("inspecting " + input.path() + " (" + std::to_string(input.bytes().size()) +
                    " bytes)");
      BLOOMCODEC_ASSIGN_OR_RETURN(doc, InspectFile(input.bytes(), input.path(), *format));
    }
    if (json) {
      files.push_back(std::move(doc));
    } else {
      if (!text.empty()) text += "\n";
      RenderDocument(doc, text);
    }
  }
  if (!json) return WriteStdout(text);
  return WriteJson(InspectDocument(std::move(files)));
}

}  // namespace bloomcodec::tool
