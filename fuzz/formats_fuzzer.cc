// What the command line does with an input file, for every format: Probe, Inspect and Dump.
// The first byte picks the format (by name, so that seeds stay valid when formats are added),
// the rest is the file. Any refusal names the file, and an offset inside it. Round trip: when Dump describes a file,
// Undump of that description gives the file back byte for byte.
#include <string_view>
#include <vector>

#include "bloomcodec/format.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

constexpr std::string_view kFormats[] = {
    "cassandra-1.0", "cassandra-legacy",     "cassandra-1.0-row", "leveldb-bloom",
    "leveldb-bloom-legacy", "leveldb-filter-block", "leveldb-table",
    "cassandra-1.2", "cassandra-3.0", "cassandra-4.0",
    "rocksdb-bloom-legacy", "rocksdb-bloom", "rocksdb-ribbon", "rocksdb-sst",
};
constexpr std::string_view kSource = "input.db";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const FormatCodec* format = FindFormat(kFormats[data[0] % std::size(kFormats)]);
  if (format == nullptr) return 0;
  const ByteSpan file(data + 1, size - 1);

  // Cassandra headers: K is the first i32 (after the row filter's length); see kMaxFuzzedHashCount.
  const std::string_view name = format->name();
  const std::int64_t k = name.starts_with("cassandra") ? fuzz::BigI32At(file, name.ends_with("-row") ? 4 : 0) : 0;
  if (k <= fuzz::kMaxFuzzedHashCount) {
    const KeyList keys = fuzz::ProbeKeys(file);
    std::vector<std::uint8_t> answers(keys.size());
    fuzz::CheckNamesSourceAndOffset(format->Probe(file, kSource, keys, ProbeOptions{}, answers),
                                    kSource, file.size());
    for (std::uint8_t a : answers) FUZZ_CHECK(a <= 1);
  }

  Result<Document> inspected = format->Inspect(file, kSource);
  if (!inspected.ok() && inspected.status().code() != StatusCode::kUnsupported) {
    fuzz::CheckNamesSourceAndOffset(inspected.status(), kSource, file.size());
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
