// bloomcodec-cli-docs FILE: rewrites the generated parts of docs/cli.md (FILE) from the flag
// declarations, as the help makes them (cli_docs.h). Run by scripts/update-cli-docs; not
// installed. A separate program rather than a hidden flag of `bloomcodec`, so that the command
// line's contract gains nothing that scripts could come to rely on.
#include <cstdio>
#include <string>

#include "bloomcodec/input_file.h"
#include "bloomcodec/output_file.h"
#include "cli_docs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: bloomcodec-cli-docs docs/cli.md\n", stderr);
    return 2;
  }
  const std::string path = argv[1];
  bloomcodec::Result<bloomcodec::InputFile> in = bloomcodec::InputFile::Open(path);
  if (!in.ok()) {
    std::fprintf(stderr, "bloomcodec-cli-docs: %s\n", in.status().ToString().c_str());
    return 2;
  }
  const std::string doc(in->bytes().begin(), in->bytes().end());
  bloomcodec::Result<std::string> updated = bloomcodec::tool::UpdateCliDocs(doc);
  if (!updated.ok()) {
    std::fprintf(stderr, "bloomcodec-cli-docs: %s: %s\n", path.c_str(),
                 updated.status().ToString().c_str());
    return 2;
  }
  if (*updated == doc) {
    std::printf("%s: up to date\n", path.c_str());
    return 0;
  }
  bloomcodec::Status s = bloomcodec::WriteFileAtomically(
      path, bloomcodec::ByteSpan(reinterpret_cast<const std::uint8_t*>(updated->data()),
                                 updated->size()));
  if (!s.ok()) {
    std::fprintf(stderr, "bloomcodec-cli-docs: %s\n", s.ToString().c_str());
    return 2;
  }
  std::printf("%s: generated parts rewritten\n", path.c_str());
  return 0;
}
