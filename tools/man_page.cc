// bloomcodec(1) in roff (see man_page.h).
#include "man_page.h"

#include <vector>

#include "bloomcodec/convert.h"
#include "bloomcodec/flags.h"
#include "bloomcodec/format.h"
#include "command_flags.h"
#include "completion.h"
#include "usage.h"

namespace bloomcodec::tool {
namespace {

// Plain text as roff: a backslash is \e, a hyphen the minus sign options are spelled with, and a
// line that would start with a control character ('.' or '\'') starts with the zero-width \&.
std::string Roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// `text` with its line breaks as spaces (help text is wrapped for a terminal; roff fills).
std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

std::string Bold(std::string_view text) { return "\\fB" + Roff(text) + "\\fR"; }
std::string Italic(std::string_view text) { return "\\fI" + Roff(text) + "\\fR"; }

// One Markdown inline run as roff: `code` bold, *emphasis* italic, [text](link) its text, the
// escapes and entities a table cell uses undone.
std::string Inline(std::string_view md) {
  std::string out;
  std::string plain;
  auto flush = [&] {
    out += Roff(plain);
    plain.clear();
  };
  for (std::size_t i = 0; i < md.size(); ++i) {
    const char c = md[i];
    const std::size_t close = i + 1 < md.size() ? md.find(c, i + 1) : std::string_view::npos;
    if ((c == '`' || c == '*') && close != std::string_view::npos) {
      flush();
      std::string inner(md.substr(i + 1, close - i - 1));
      if (c == '`') {
        for (std::size_t at; (at = inner.find("\\|")) != std::string::npos;) inner.erase(at, 1);
      }
      out += c == '`' ? Bold(inner) : Italic(inner);
      i = close;
    } else if (c == '[' && md.find("](", i) != std::string_view::npos &&
               md.find("](", i) < md.find(']', i) + 1) {
      const std::size_t mid = md.find("](", i);
      const std::size_t end = md.find(')', mid);
      plain += md.substr(i + 1, mid - i - 1);
      i = end == std::string_view::npos ? md.size() : end;
    } else if (c == '\\' && i + 1 < md.size() && md[i + 1] == '|') {
      plain += '|';
      ++i;
    } else if (md.substr(i, 4) == "&lt;" || md.substr(i, 4) == "&gt;") {
      plain += md[i + 1] == 'l' ? '<' : '>';
      i += 3;
    } else {
      plain += c;
    }
  }
  flush();
  return out;
}

// The cells of a Markdown table row; '|' escaped as "\|" stays inside its cell.
std::vector<std::string> Cells(std::string_view row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = row.find('|') + 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  for (std::string& c : cells) {
    while (!c.empty() && c.front() == ' ') c.erase(c.begin());
    while (!c.empty() && c.back() == ' ') c.pop_back();
  }
  return cells;
}

// A table row as a tagged paragraph: the first cell the tag, the second in parentheses when
// there are three or more (the severity of a finding), the rest the text.
std::string TableRow(std::string_view row) {
  const std::vector<std::string> cells = Cells(row);
  if (cells.empty()) return {};
  std::string text = ".TP\n" + Inline(cells[0]) + "\n";
  std::string body;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    if (cells.size() > 2 && i == 1) {
      body += "(" + cells[i] + ") ";
    } else {
      body += (i > (cells.size() > 2 ? 2u : 1u) ? "|" : "") + cells[i];
    }
  }
  return text + Inline(body) + "\n";
}

// The body of the section under `heading` (the whole heading line) up to the next heading.
std::string_view Section(std::string_view md, std::string_view heading) {
  std::size_t at = md.find(std::string("\n") + std::string(heading) + "\n");
  if (at == std::string_view::npos) return {};
  at += heading.size() + 2;
  std::size_t end = md.find("\n#", at);
  return md.substr(at, end == std::string_view::npos ? md.size() - at : end + 1 - at);
}

}  // namespace

std::string MarkdownToRoff(std::string_view markdown) {
  std::string out;
  std::string paragraph;  // Markdown lines of the paragraph or list item being read
  bool item = false;
  auto flush = [&] {
    if (!paragraph.empty()) out += (item ? ".IP \\(bu 2\n" : ".PP\n") + Inline(paragraph) + "\n";
    paragraph.clear();
  };
  bool table_head = false;
  while (!markdown.empty()) {
    const std::size_t nl = markdown.find('\n');
    std::string_view line = markdown.substr(0, nl);
    markdown = nl == std::string_view::npos ? std::string_view() : markdown.substr(nl + 1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.starts_with("|")) {
      if (!table_head) {  // the header row, then the |---| line
        flush();
        table_head = true;
      } else if (!line.starts_with("|---")) {
        out += TableRow(line);
      }
      continue;
    }
    table_head = false;
    if (line.empty() || line.starts_with("<!--")) {
      flush();
    } else if (line.starts_with("* ") || line.starts_with("- ")) {
      flush();
      item = true;
      paragraph = line.substr(2);
    } else {
      if (paragraph.empty()) item = false;
      paragraph += (paragraph.empty() ? "" : " ") + std::string(line);
    }
  }
  flush();
  return out;
}

namespace {

std::string FlagTag(const FlagDecl& d) {
  return ".TP\n" + Bold(d.name) + (d.value.empty() ? "" : " " + Italic(d.value)) + "\n";
}

std::string Synopses() {
  std::string text = ".SH SYNOPSIS\n.ad l\n";
  for (Subcommand s : AllSubcommands()) {
    const std::string synopsis = Synopsis(s);
    const std::size_t space = synopsis.find(' ');
    text += Bold("bloomcodec " + synopsis.substr(0, space)) + " " +
            Roff(synopsis.substr(space + 1)) + "\n.br\n";
  }
  text += Bold("bloomcodec help") + " [" + Italic("SUBCOMMAND") + "] | " + Bold("bloomcodec") +
          " " + Italic("SUBCOMMAND") + " " + Bold("--help") + " | " + Bold("bloomcodec --version") +
          "\n.ad\n";
  return text;
}

std::string SubcommandSections() {
  std::string text = ".SH SUBCOMMANDS\n";
  for (Subcommand s : AllSubcommands()) {
    text += ".SS " + std::string(SubcommandName(s)) + "\n.PP\n" + Bold("bloomcodec") + " " +
            Roff(Synopsis(s)) + "\n.PP\n" + Roff(OneLine(SubcommandDetails(s))) + "\n";
  }
  return text;
}

std::string Options() {
  std::string text = ".SH OPTIONS\nThe command line's own flags, shared by every format:\n";
  for (const FlagDecl& d : CommandFlags()) {
    text += FlagTag(d) + Roff(d.help) + " (" + SubcommandList(d.subcommands) + ")\n";
  }
  text +=
      ".PP\nThe flags of the format families, each read by the family that declares it "
      "(a name two families declare is read by both):\n";
  for (const FamilyFlag& f : FamilyFlags()) {
    const FlagDecl& d = *f.decl;
    std::string formats;
    for (const FormatCodec* format : d.formats) {
      formats += (formats.empty() ? "" : ", ") + std::string(format->name());
    }
    text += FlagTag(d) +
            Roff(std::string(f.family) + ": " + std::string(d.applies_to) +
                 (formats.empty() ? "" : " (" + formats + ")") + "; " +
                 SubcommandList(d.subcommands) + ". " + std::string(d.help)) +
            "\n";
  }
  return text;
}

std::string Formats() {
  std::string text =
      ".SH FORMATS\nThe formats of this build (" + Bold("--format") + ", " + Bold("--to") + "):\n";
  for (const FormatCodec* f : AllFormats()) {
    text += ".TP\n" + Bold(f->name()) + "\n" + Roff(f->summary());
    if (!f->params_help().empty()) text += " [" + Roff(f->params_help()) + "]";
    text += "\n";
  }
  text += ".SS Conversions\nBesides a dump back to its format and a format to itself:\n";
  for (const ConversionInfo& c : Conversions()) {
    if (c.note.empty()) continue;  // a step of another rule, as the help leaves it out
    text += ".TP\n" + Bold(c.from->name()) + " \\(-> " + Bold(c.to->name()) + " (" +
            Roff(ConversionKindName(c.kind)) + ")\n" + Roff(c.note) + "\n";
  }
  return text;
}

}  // namespace

Result<std::string> ManPage(std::string_view cli_md, std::string_view version) {
  const std::string_view exit_status = Section(cli_md, "### Exit status and errors");
  const std::string_view findings = Section(cli_md, "### Findings");
  if (exit_status.empty())
    return Status::InvalidArgument("no section '### Exit status and errors'");
  if (findings.empty()) return Status::InvalidArgument("no section '### Findings'");
  std::string page =
      ".\\\" bloomcodec(1). Generated at build time by bloomcodec-cli-docs from the flag\n"
      ".\\\" declarations, the format registry and docs/cli.md; do not edit.\n"
      ".TH BLOOMCODEC 1 \"\" \"bloomcodec " +
      Roff(version) +
      "\" \"User Commands\"\n"
      ".nh\n"  // no hyphenation: flag and format names must stay whole
      ".SH NAME\nbloomcodec \\- " +
      Roff(OneLine(Summary())) + "\n";
  page += Synopses();
  page += ".SH DESCRIPTION\n" + Bold("bloomcodec") + ": " + Roff(OneLine(Summary())) + "\n.PP\n" +
          Roff(OneLine(KeyFilesHelp())) + "\n";
  page += SubcommandSections() + Options() + Formats();
  page += ".SH EXIT STATUS\n" + MarkdownToRoff(exit_status);
  page += ".SH FINDINGS\n" + MarkdownToRoff(findings);
  page +=
      ".SH SEE ALSO\nThe command line's contract, of which this page is the short form: "
      "/usr/share/doc/bloomcodec/cli.md (docs/cli.md in the source).\n";
  return page;
}

}  // namespace bloomcodec::tool
