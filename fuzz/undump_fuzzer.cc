// JSON dumps (`convert` from a dump): any text either is refused with a status naming the dump
// or gives a file; that file dumps and undumps to itself. Every format is asked, as a dump of
// the wrong format must be refused too.
#include <nlohmann/json.hpp>

#include "bloomcodec/format.h"
#include "fuzz_support.h"

using namespace bloomcodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The parser itself is nlohmann's; parse errors are not ours to test beyond not throwing.
  Document dump = Document::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (dump.is_discarded()) return 0;
  for (const FormatCodec* format : AllFormats()) {
    Result<ByteVector> file = format->Undump(dump, "dump.json");
    if (!file.ok()) {
      if (file.status().code() != StatusCode::kUnsupported) {
        fuzz::CheckNamesSource(file.status(), "dump.json");
      }
      continue;
    }
    Result<Document> again = format->Dump(*file, "undumped");
    FUZZ_CHECK(again.ok());
    Result<ByteVector> file_again = format->Undump(*again, "again.json");
    FUZZ_CHECK(file_again.ok());
    FUZZ_CHECK(fuzz::SameBytes(*file_again, *file));
  }
  return 0;
}
