// What the build makes from the declarations besides the help (tools/man_page.h,
// tools/completion.h): the bash and zsh completion name every subcommand and every format of
// the registry, the bash script the build wrote parses and registers itself and completes
// subcommands, flags, formats and choices as bash runs it; the man page holds every subcommand,
// flag and format and takes the exit status and findings from docs/cli.md.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "bloomcodec/format.h"
#include "command_flags.h"
#include "completion.h"
#include "man_page.h"

namespace bloomcodec::tool {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text of `s` between the first `begin` and the next `end` after it.
std::string Between(const std::string& s, const std::string& begin, const std::string& end) {
  const std::size_t at = s.find(begin);
  if (at == std::string::npos) return "(no " + begin + ")";
  const std::size_t stop = s.find(end, at + begin.size());
  return s.substr(at + begin.size(), stop - at - begin.size());
}

// Standard output of `bash -c SCRIPT` (stderr joined); the exit status in `status`.
std::string Bash(const std::string& script, int* status) {
  const std::string command = "bash -c '" + script + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  *status = pclose(pipe);
  return out;
}

// What the installed script offers for the words of a command line whose last word is being
// completed, one word per line.
std::string Complete(const std::string& words) {
  int status = -1;
  std::string out = Bash(std::string("source ") + BLOOMCODEC_BASH_COMPLETION + " && COMP_WORDS=(" +
                             words + ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _bloomcodec" +
                             " && for w in \"${COMPREPLY[@]}\"; do echo \"$w\"; done",
                         &status);
  EXPECT_EQ(status, 0) << out;
  return out;
}

TEST(Completion, NamesEverySubcommandAndFormat) {
  const std::string bash = BashCompletion();
  const std::string zsh = ZshCompletion();
  ASSERT_FALSE(AllFormats().empty());
  for (Subcommand s : AllSubcommands()) {
    const std::string name(SubcommandName(s));
    EXPECT_NE(bash.find(" " + name + ")"), std::string::npos) << name;
    EXPECT_NE(zsh.find(" " + name + ")"), std::string::npos) << name;
    for (const FlagSpec& flag : SubcommandFlags(s)) {
      EXPECT_NE(bash.find(std::string(flag.name) + " "), std::string::npos) << flag.name;
      EXPECT_NE(zsh.find("'" + std::string(flag.name) + "["), std::string::npos) << flag.name;
    }
  }
  // The format names, as the scripts list them, are the registry's.
  std::string formats;
  for (const FormatCodec* f : AllFormats())
    formats += (formats.empty() ? "" : " ") + std::string(f->name());
  EXPECT_EQ(Between(bash, "local formats=\"", "\""), formats);
  EXPECT_EQ(Between(zsh, "]:format:(", ")"), formats);
  // The scripts the build installs are these.
  EXPECT_EQ(Read(BLOOMCODEC_BASH_COMPLETION), bash);
  EXPECT_EQ(Read(BLOOMCODEC_ZSH_COMPLETION), zsh);
}

TEST(Completion, BashParsesAndRegistersIt) {
  int status = -1;
  std::string out = Bash(std::string("bash -n ") + BLOOMCODEC_BASH_COMPLETION, &status);
  EXPECT_EQ(status, 0) << out;
  out = Bash(std::string("source ") + BLOOMCODEC_BASH_COMPLETION + " && complete -p bloomcodec",
             &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("-F _bloomcodec bloomcodec"), std::string::npos) << out;
}

TEST(Completion, BashCompletesWhatTheDeclarationsSay) {
  EXPECT_EQ(Complete("bloomcodec ver"), "verify\n");
  std::string formats;
  for (const FormatCodec* f : AllFormats()) formats += std::string(f->name()) + "\n";
  EXPECT_EQ(Complete("bloomcodec convert in.db --to \"\""), formats);
  EXPECT_EQ(Complete("bloomcodec probe --key-format \"\""), "text\nhex\nbase64\n");
  EXPECT_EQ(Complete("bloomcodec repair --dry"), "--dry-run\n");
  EXPECT_EQ(Complete("bloomcodec help con"), "convert\n");
  // A flag of one subcommand is not offered for another.
  EXPECT_EQ(Complete("bloomcodec dump --dry"), "");
}

TEST(ManPage, HoldsEverySubcommandFlagAndFormat) {
  const std::string docs = Read(BLOOMCODEC_CLI_DOCS);
  Result<std::string> page = ManPage(docs, "9.9.9");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_NE(page->find(".TH BLOOMCODEC 1 \"\" \"bloomcodec 9.9.9\""), std::string::npos);
  auto roff = [](std::string_view text) {
    std::string out;
    for (char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  for (Subcommand s : AllSubcommands()) {
    EXPECT_NE(page->find(".SS " + std::string(SubcommandName(s)) + "\n"), std::string::npos);
    for (const FlagSpec& flag : SubcommandFlags(s)) {
      EXPECT_NE(page->find(".TP\n\\fB" + roff(flag.name) + "\\fR"), std::string::npos) << flag.name;
    }
  }
  for (const FormatCodec* f : AllFormats()) {
    EXPECT_NE(page->find(".TP\n\\fB" + roff(f->name()) + "\\fR\n"), std::string::npos) << f->name();
  }
  // Exit status and findings come from docs/cli.md's tables.
  EXPECT_NE(page->find(".SH EXIT STATUS\n"), std::string::npos);
  EXPECT_NE(page->find(".TP\n\\fBfalse\\-negative\\fR\n(error) keys the filter answers"),
            std::string::npos);
  // The page the build installs is this one (of the project's version).
  const std::string built = Read(BLOOMCODEC_MAN_PAGE);
  EXPECT_EQ(built.substr(built.find(".SH NAME")), page->substr(page->find(".SH NAME")));
}

TEST(ManPage, RefusesDocsWithoutItsSections) {
  Result<std::string> page = ManPage("# cli\n\n### Findings\n\n| a | b |\n", "1");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().ToString().find("Exit status and errors"), std::string::npos);
}

TEST(ManPage, MarkdownBecomesRoff) {
  EXPECT_EQ(MarkdownToRoff("A `-x` flag, *so*:\nnext line.\n\n* one\n  two\n"),
            ".PP\nA \\fB\\-x\\fR flag, \\fIso\\fR: next line.\n.IP \\(bu 2\none two\n");
  EXPECT_EQ(MarkdownToRoff("| k | s | m |\n|---|---|---|\n| `a\\|b` | error | x \\| y, [l](u) |\n"),
            ".TP\n\\fBa|b\\fR\n(error) x | y, l\n");
  // A line that would start with a control character is escaped; a backslash is \e.
  EXPECT_EQ(MarkdownToRoff("'quoted' \\ and\n.dot\n"), ".PP\n\\&'quoted' \\e and .dot\n");
}

}  // namespace
}  // namespace bloomcodec::tool
