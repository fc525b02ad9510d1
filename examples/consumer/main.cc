// Builds a LevelDB bloom filter for three keys through the installed library and asks it about
// them and one stranger. Exits 0 when every inserted key is answered "may contain".
#include <cstdio>
#include <vector>

#include "bloomcodec/format.h"

int main() {
  const bloomcodec::FormatCodec* format = bloomcodec::FindFormat("leveldb-bloom");
  if (format == nullptr) {
    std::fprintf(stderr, "consumer: leveldb-bloom is not in this build\n");
    return 1;
  }
  bloomcodec::KeyList keys;
  for (const char* key : {"apple", "banana", "cherry"}) keys.Add(std::string_view(key));

  bloomcodec::FilterParams params;
  params.bits_per_key = 10;
  bloomcodec::Result<bloomcodec::ByteVector> filter = format->Build(keys, params);
  if (!filter.ok()) {
    std::fprintf(stderr, "consumer: %s\n", filter.status().ToString().c_str());
    return 1;
  }

  keys.Add(std::string_view("durian"));  // never inserted
  std::vector<std::uint8_t> answers(keys.size());
  bloomcodec::Status status =
      format->Probe(*filter, "in-memory filter", keys, bloomcodec::ProbeOptions{}, answers);
  if (!status.ok()) {
    std::fprintf(stderr, "consumer: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("leveldb-bloom filter of %zu bytes: apple=%d banana=%d cherry=%d durian=%d\n",
              filter->size(), answers[0], answers[1], answers[2], answers[3]);
  return answers[0] && answers[1] && answers[2] ? 0 : 1;
}
