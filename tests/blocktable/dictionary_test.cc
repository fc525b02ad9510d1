// RocksDB's compression dictionaries: data blocks compressed with a dictionary (as RocksDB's
// CompressBlock does with CompressionDict: zstd's *_usingDict, LZ4's stream with the dictionary
// loaded, raw deflate after deflateSetDictionary), each behind RocksDB's varint32 size prefix,
// decompress with it and fail without it or with another one, naming the block's offset.
#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "blocktable/trailer.h"
#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {
namespace {

ByteVector Text(std::size_t n, int salt) {
  ByteVector v;
  for (std::size_t i = 0; v.size() < n; ++i) {
    const std::string s = "user" + std::to_string((i * 7919 + salt) % 1000) + ":value;";
    v.insert(v.end(), s.begin(), s.end());
  }
  v.resize(n);
  return v;
}

ByteVector SizePrefixed(std::size_t raw, const ByteVector& compressed) {
  ByteVector out;
  ByteWriter(out).PutVarint32(static_cast<std::uint32_t>(raw));
  out.insert(out.end(), compressed.begin(), compressed.end());
  return out;
}

ByteVector ZstdWithDict(const ByteVector& raw, const ByteVector& dict) {
  ByteVector out(ZSTD_compressBound(raw.size()));
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  const std::size_t n = ZSTD_compress_usingDict(ctx, out.data(), out.size(), raw.data(), raw.size(),
                                                dict.data(), dict.size(), 3);
  ZSTD_freeCCtx(ctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return SizePrefixed(raw.size(), out);
}

ByteVector Lz4WithDict(const ByteVector& raw, const ByteVector& dict) {
  LZ4_stream_t* stream = LZ4_createStream();
  LZ4_loadDict(stream, reinterpret_cast<const char*>(dict.data()), static_cast<int>(dict.size()));
  ByteVector out(LZ4_compressBound(static_cast<int>(raw.size())));
  const int n = LZ4_compress_fast_continue(
      stream, reinterpret_cast<const char*>(raw.data()), reinterpret_cast<char*>(out.data()),
      static_cast<int>(raw.size()), static_cast<int>(out.size()), 1);
  LZ4_freeStream(stream);
  EXPECT_GT(n, 0);
  out.resize(static_cast<std::size_t>(n));
  return SizePrefixed(raw.size(), out);
}

ByteVector ZlibWithDict(const ByteVector& raw, const ByteVector& dict) {
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY), Z_OK);
  EXPECT_EQ(deflateSetDictionary(&s, dict.data(), static_cast<uInt>(dict.size())), Z_OK);
  ByteVector out(deflateBound(&s, raw.size()) + 16);
  s.next_in = const_cast<Bytef*>(raw.data());
  s.avail_in = static_cast<uInt>(raw.size());
  s.next_out = out.data();
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(s.total_out);
  deflateEnd(&s);
  return SizePrefixed(raw.size(), out);
}

TEST(CompressionDictionary, DataBlocksDecompressOnlyWithTheirDictionary) {
  TrailerFormat format;
  format.family = TableFamily::kRocksDb;
  format.format_version = 6;
  const ByteVector dict = Text(4096, 1);
  const ByteVector other = Text(4096, 500);
  const ByteVector raw = Text(3000, 2);
  struct Case {
    BlockCompression type;
    ByteVector stored;
  };
  for (const Case& c : {Case{BlockCompression::kZstd, ZstdWithDict(raw, dict)},
                        Case{BlockCompression::kLz4, Lz4WithDict(raw, dict)},
                        Case{BlockCompression::kLz4hc, Lz4WithDict(raw, dict)},
                        Case{BlockCompression::kZlib, ZlibWithDict(raw, dict)}}) {
    SCOPED_TRACE(std::string(CompressionName(c.type)));
    Result<ByteVector> with =
        Decompress(format, c.type, c.stored, "d.sst", 4242, "data block", 1 << 20, dict);
    ASSERT_TRUE(with.ok()) << with.status().ToString();
    EXPECT_EQ(*with, raw);
    // Without the dictionary (or with another one) the bytes do not come back: an error at the
    // block's offset, or (LZ4, which cannot tell) other bytes.
    for (const ByteVector* d : {static_cast<const ByteVector*>(nullptr), &other}) {
      Result<ByteVector> wrong = Decompress(format, c.type, c.stored, "d.sst", 4242, "data block",
                                            1 << 20, d == nullptr ? ByteSpan() : ByteSpan(*d));
      if (wrong.ok()) {
        EXPECT_NE(*wrong, raw);
      } else {
        EXPECT_EQ(wrong.status().offset(), std::optional<std::uint64_t>(4242))
            << wrong.status().ToString();
      }
    }
  }
}

}  // namespace
}  // namespace bloomcodec::blocktable
