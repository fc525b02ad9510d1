// bloomcodec-cli-docs: what is made from the flag declarations and the format registry besides
// the help. Not installed. A separate program rather than hidden flags of `bloomcodec`, so that
// the command line's contract gains nothing that scripts could come to rely on.
//   bloomcodec-cli-docs docs/cli.md            rewrites its generated parts (cli_docs.h; run by
//                                              scripts/update-cli-docs)
//   bloomcodec-cli-docs --man docs/cli.md VERSION OUT   writes bloomcodec(1) (man_page.h)
//   bloomcodec-cli-docs --bash OUT | --zsh OUT          writes a completion script (completion.h)
// The last two run at build time (tools/CMakeLists.txt).
#include <cstdio>
#include <string>
#include <string_view>

#include "bloomcodec/input_file.h"
#include "bloomcodec/output_file.h"
#include "cli_docs.h"
#include "completion.h"
#include "man_page.h"

namespace {

bloomcodec::Result<std::string> Read(const std::string& path) {
  BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::InputFile in, bloomcodec::InputFile::Open(path));
  return std::string(in.bytes().begin(), in.bytes().end());
}

bloomcodec::Status Write(const std::string& path, std::string_view text) {
  return bloomcodec::WriteFileAtomically(
      path, bloomcodec::ByteSpan(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

int Fail(const std::string& what, const bloomcodec::Status& status) {
  std::fprintf(stderr, "bloomcodec-cli-docs: %s%s\n", what.c_str(), status.ToString().c_str());
  return 2;
}

// Rewrites the generated parts of docs/cli.md in place.
int UpdateDocs(const std::string& path) {
  bloomcodec::Result<std::string> doc = Read(path);
  if (!doc.ok()) return Fail("", doc.status());
  bloomcodec::Result<std::string> updated = bloomcodec::tool::UpdateCliDocs(*doc);
  if (!updated.ok()) return Fail(path + ": ", updated.status());
  if (*updated == *doc) {
    std::printf("%s: up to date\n", path.c_str());
    return 0;
  }
  if (bloomcodec::Status s = Write(path, *updated); !s.ok()) return Fail("", s);
  std::printf("%s: generated parts rewritten\n", path.c_str());
  return 0;
}

int WriteMan(const std::string& cli_md, const std::string& version, const std::string& out) {
  bloomcodec::Result<std::string> doc = Read(cli_md);
  if (!doc.ok()) return Fail("", doc.status());
  bloomcodec::Result<std::string> page = bloomcodec::tool::ManPage(*doc, version);
  if (!page.ok()) return Fail(cli_md + ": ", page.status());
  if (bloomcodec::Status s = Write(out, *page); !s.ok()) return Fail("", s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (argc == 2 && !mode.starts_with("--")) return UpdateDocs(argv[1]);
  if (argc == 5 && mode == "--man") return WriteMan(argv[2], argv[3], argv[4]);
  if (argc == 3 && (mode == "--bash" || mode == "--zsh")) {
    const std::string script =
        mode == "--bash" ? bloomcodec::tool::BashCompletion() : bloomcodec::tool::ZshCompletion();
    if (bloomcodec::Status s = Write(argv[2], script); !s.ok()) return Fail("", s);
    return 0;
  }
  std::fputs(
      "usage: bloomcodec-cli-docs docs/cli.md | --man docs/cli.md VERSION OUT | --bash OUT | "
      "--zsh OUT\n",
      stderr);
  return 2;
}
