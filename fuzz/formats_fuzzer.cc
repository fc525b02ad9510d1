// What the command line does with an input file, for every format the registry holds: Probe,
// Inspect and Dump. The input is "<format name>\n<file>", so that seeds stay valid when formats
// are added; an input without a known name picks a format by its first byte. Any refusal names
// the file, and an offset inside it. Round trip: when Dump describes a file, Undump of that
// description gives the file back byte for byte.
#include <algorithm>
#include <string_view>
#include <vector>

#include "bloomcodec/format.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

constexpr std::string_view kSource = "input.db";
constexpr std::size_t kLongestName = 64;

// The format the input names, and the file after the name's line.
const FormatCodec* PickFormat(ByteSpan input, ByteSpan& file) {
  const std::size_t scan = std::min(input.size(), kLongestName);
  const auto newline = std::find(input.begin(), input.begin() + scan, std::uint8_t{'\n'});
  if (newline != input.begin() + scan) {
    const std::string_view name(reinterpret_cast<const char*>(input.data()),
                                static_cast<std::size_t>(newline - input.begin()));
    if (const FormatCodec* f = FindFormat(name)) {
      file = input.subspan(name.size() + 1);
      return f;
    }
  }
  const auto all = AllFormats();
  file = input.subspan(1);
  return all[input[0] % all.size()];
}

// A hash count above kMaxFuzzedHashCount (Cassandra's headers hold an unchecked i32) makes one
// probe take seconds: such headers are decoded, not probed.
bool CheapToProbe(const Result<Document>& inspected) {
  if (!inspected.ok()) return true;
  auto k = inspected->find("hash_count");
  return k == inspected->end() || !k->is_number_integer() ||
         k->get<std::int64_t>() <= fuzz::kMaxFuzzedHashCount;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ByteSpan file;
  const FormatCodec* format = PickFormat(ByteSpan(data, size), file);

  Result<Document> inspected = format->Inspect(file, kSource);
  if (!inspected.ok() && inspected.status().code() != StatusCode::kUnsupported) {
    fuzz::CheckNamesSourceAndOffset(inspected.status(), kSource, file.size());
  }
  if (CheapToProbe(inspected)) {
    const KeyList keys = fuzz::ProbeKeys(file);
    std::vector<std::uint8_t> answers(keys.size());
    fuzz::CheckNamesSourceAndOffset(format->Probe(file, kSource, keys, ProbeOptions{}, answers),
                                    kSource, file.size());
    for (std::uint8_t a : answers) FUZZ_CHECK(a <= 1);
  }
  Result<Document> dumped = format->Dump(file, kSource);
  if (!dumped.ok()) {
    if (dumped.status().code() != StatusCode::kUnsupported) {
      fuzz::CheckNamesSourceAndOffset(dumped.status(), kSource, file.size());
    }
    return 0;
  }
  Result<ByteVector> undumped = format->Undump(*dumped, "dump.json");
  FUZZ_CHECK(undumped.ok());
  FUZZ_CHECK(fuzz::SameBytes(*undumped, file));
  return 0;
}
