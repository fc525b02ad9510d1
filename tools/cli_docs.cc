// docs/cli.md's generated parts (see cli_docs.h).
#include "cli_docs.h"

#include <algorithm>
#include <vector>

#include "bloomcodec/flags.h"
#include "command_flags.h"
#include "completion.h"
#include "usage.h"

namespace bloomcodec::tool {
namespace {

// Text for a Markdown table cell: '|' would end the cell, '<' start an HTML tag.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// A code span in a cell: only '|' needs its backslash there.
std::string Code(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out.empty() ? out : "`" + out + "`";
}

// What verify does with the flag for a directory.
std::string_view InDirectories(const FlagDecl& d) {
  if (!d.subcommands.has(Subcommand::kVerify)) return "";
  return d.directories == DirectoryUse::kApplies ? "applies" : "refused";
}

std::string Invocation() {
  std::string text = "```\n";
  for (Subcommand s : AllSubcommands()) {
    std::string synopsis = Synopsis(s);
    const std::size_t space = synopsis.find(' ');
    std::string name = synopsis.substr(0, space);
    name.resize(std::max<std::size_t>(name.size() + 1, 8), ' ');
    text += "bloomcodec " + name + synopsis.substr(space + 1) + "\n";
  }
  text += "bloomcodec help [SUBCOMMAND] | bloomcodec SUBCOMMAND --help | bloomcodec --version\n";
  return text + "```\n";
}

std::string CommandFlagTable() {
  std::string text =
      "| flag | value | subcommands | meaning |\n"
      "|---|---|---|---|\n";
  for (const FlagDecl& d : CommandFlags()) {
    text += "| " + Code(d.name) + " | " + Code(d.value) + " | " + SubcommandList(d.subcommands) +
            " | " + Cell(d.help) + " |\n";
  }
  return text;
}

std::string FamilyFlagTable() {
  std::string text =
      "| flag | value | family | applies to | subcommands | verify of a directory | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const FamilyFlag& f : FamilyFlags()) {
    const FlagDecl& d = *f.decl;
    std::string formats;
    for (const FormatCodec* format : d.formats) {
      formats += (formats.empty() ? "" : ", ") + Code(format->name());
    }
    text += "| " + Code(d.name) + " | " + Code(d.value) + " | " + std::string(f.family) + " | " +
            Cell(d.applies_to) + (formats.empty() ? "" : " (" + formats + ")") + " | " +
            SubcommandList(d.subcommands) + " | " + std::string(InDirectories(d)) + " | " +
            Cell(d.help) + " |\n";
  }
  return text;
}

// Every part's name, in no particular order.
std::vector<std::string> PartNames() {
  std::vector<std::string> names = {"invocation", "flags", "family flags"};
  for (Subcommand s : AllSubcommands())
    names.push_back("synopsis " + std::string(SubcommandName(s)));
  return names;
}

constexpr std::string_view kBegin = "<!-- generated ";
constexpr std::string_view kBeginEnd = ": scripts/update-cli-docs writes what follows -->";
constexpr std::string_view kEnd = "<!-- end of generated ";

}  // namespace

std::string GeneratedPart(std::string_view name) {
  if (name == "invocation") return Invocation();
  if (name == "flags") return CommandFlagTable();
  if (name == "family flags") return FamilyFlagTable();
  for (Subcommand s : AllSubcommands()) {
    if (name == "synopsis " + std::string(SubcommandName(s))) return "`" + Synopsis(s) + "`\n";
  }
  return {};
}

Result<std::string> UpdateCliDocs(std::string_view doc) {
  std::string out;
  std::vector<std::string> seen;
  std::size_t at = 0;
  while (true) {
    const std::size_t begin = doc.find(kBegin, at);
    if (begin == std::string_view::npos) break;
    const std::size_t name_end = doc.find(kBeginEnd, begin);
    const std::size_t line_end = doc.find('\n', begin);
    if (name_end == std::string_view::npos || line_end == std::string_view::npos ||
        name_end > line_end) {
      return Status::InvalidArgument("a generated part's first line is not " + std::string(kBegin) +
                                     "NAME" + std::string(kBeginEnd));
    }
    const std::string name(doc.substr(begin + kBegin.size(), name_end - begin - kBegin.size()));
    const std::string part = GeneratedPart(name);
    if (part.empty()) return Status::InvalidArgument("no generated part is called '" + name + "'");
    const std::string end_marker = std::string(kEnd) + name + " -->";
    const std::size_t end = doc.find(end_marker, line_end);
    if (end == std::string_view::npos) {
      return Status::InvalidArgument("the generated part '" + name + "' has no " + end_marker);
    }
    out += doc.substr(at, line_end + 1 - at);
    out += part;
    at = end;
    seen.push_back(name);
  }
  out += doc.substr(at);
  for (const std::string& name : PartNames()) {
    if (std::find(seen.begin(), seen.end(), name) == seen.end()) {
      return Status::InvalidArgument("the generated part '" + name + "' is missing");
    }
  }
  return out;
}

}  // namespace bloomcodec::tool
