// convert's JSON inputs (bloomcodec::Convert with no input format): dumps and splits' lists.
// A split's list names filter files in its own directory; the fuzzer keeps one with a real split
// (filter-N, their gzipped copies filter-N.gz and the filters.json that lists them), so that
// mutated lists resolve real files (sizes that disagree, names outside the directory, the same
// file twice, a .gz) before undumping. Every target format is asked: a result must have files,
// a lossless result of the document's own format dumps and undumps to itself, and a refusal of
// bad bytes names the list or a file of its directory.
#include <stdlib.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bloomcodec/convert.h"
#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

std::string g_dir;

void WriteFile(const std::string& path, ByteSpan bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

ByteVector Gzip(ByteSpan plain) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  ByteVector out(deflateBound(&z, plain.size()) + 64);
  z.next_in = const_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void RemoveDir() {
  std::error_code ec;
  std::filesystem::remove_all(g_dir, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char dir[] = "/tmp/bloomcodec-convert-fuzz-XXXXXX";
  if (!mkdtemp(dir)) std::abort();
  g_dir = dir;
  std::atexit(RemoveDir);
  // A filter block of four data blocks (one filter per 2 KiB of data offsets, some empty).
  leveldb::FilterBlockBuilder builder(leveldb::BloomPolicy::Current(10));
  const std::uint64_t offsets[] = {0, 1500, 3000, 7000};
  int key = 0;
  for (std::uint64_t offset : offsets) {
    builder.StartBlock(offset);
    for (int i = 0; i < 12; ++i) {
      const std::string k = "key" + std::to_string(key++);
      builder.AddKey(AsBytes(k));
    }
  }
  const ByteVector block = builder.Finish();
  ConvertInput in{g_dir + "/block.bin", block, FindFormat("leveldb-filter-block")};
  ConvertOptions options;
  options.to = FindFormat("leveldb-bloom");
  options.split = true;
  Result<Conversion> split = Convert(in, options);
  if (!split.ok()) std::abort();
  for (const ConvertedFile& f : split->files) {
    WriteFile(g_dir + "/" + f.name, f.bytes);
    if (f.name != kSplitListName) WriteFile(g_dir + "/" + f.name + ".gz", Gzip(f.bytes));
  }
  // fuzz/seed-corpus asks for the list (and one naming the .gz copies) as seeds.
  if (const char* seeds = std::getenv("BLOOMCODEC_CONVERT_FUZZER_SEEDS")) {
    for (const ConvertedFile& f : split->files) {
      if (f.name != kSplitListName) continue;
      WriteFile(std::string(seeds) + "/filters.json", f.bytes);
      std::string text(f.bytes.begin(), f.bytes.end());
      for (std::size_t at = 0; (at = text.find("\"file\": \"", at)) != std::string::npos;) {
        at = text.find('"', at + 8) + 1;
        at = text.find('"', at);
        text.insert(at, ".gz");
      }
      WriteFile(std::string(seeds) + "/filters_gz.json", AsBytes(text));
    }
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string list = g_dir + "/" + std::string(kSplitListName);
  const ConvertInput input{list, ByteSpan(data, size), nullptr};
  for (const FormatCodec* to : AllFormats()) {
    ConvertOptions options;
    options.to = to;
    Result<Conversion> c = Convert(input, options);
    if (!c.ok()) {
      if (c.status().code() == StatusCode::kCorrupt) {
        FUZZ_CHECK(c.status().ToString().rfind(g_dir + "/", 0) == 0);
      }
      continue;
    }
    FUZZ_CHECK(!c->files.empty());
    if (c->kind == ConversionKind::kLossless && c->input_format == to && c->files.size() == 1) {
      const ByteVector& bytes = c->files[0].bytes;
      Result<Document> dump = to->Dump(bytes, "converted");
      FUZZ_CHECK(dump.ok());
      Result<ByteVector> undumped = to->Undump(*dump, "converted.json");
      FUZZ_CHECK(undumped.ok() && fuzz::SameBytes(*undumped, bytes));
    }
  }
  return 0;
}
