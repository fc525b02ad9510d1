#include "blocktable/trailer.h"

#include <lz4.h>
#include <lz4hc.h>
#include <snappy.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>
#include <boost/endian/conversion.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "blocktable/crc32c.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {

namespace {

std::string Hex32(std::uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

// The most bytes `n` compressed bytes can expand to, per algorithm, so that an untrusted size
// field is refused before anything is allocated. Larger claims cannot decompress exactly anyway.
std::uint64_t MaxExpansion(BlockCompression type, std::uint64_t n) {
  switch (type) {
    case BlockCompression::kSnappy:
      // Every Snappy element costs input bytes: a literal of n bytes costs at least 1 + n; a copy
      // with a 1-byte offset costs 2 bytes and yields at most 11; with a 2-byte offset 3 bytes
      // and at most 64; with a 4-byte offset 5 bytes and at most 64. The densest is the 3-byte
      // copy (64 per 3 bytes), so n bytes after the length header yield at most
      // 64 * floor(n / 3) + 11 (two spare bytes can form one 2-byte copy). Counting the header's
      // bytes as element bytes too and adding 64 keeps the bound safe and simple. A larger claim
      // can only fail to decompress (Snappy requires the output to be filled exactly), so
      // refusing it early changes no answer of the originals, which fail the block as well.
      return n / 3 * 64 + 64;
    case BlockCompression::kZlib: return n * 1032 + 64;  // deflate's maximum ratio is 1032:1
    case BlockCompression::kLz4:
    case BlockCompression::kLz4hc:
      return n * 255 + 64;  // each extra length byte adds at most 255 bytes of match
    default:
      // Zstandard: a 4-byte RLE block (3-byte header + 1 byte) yields at most 128 KiB.
      return (n / 4 + 1) * (std::uint64_t{128} << 10);
  }
}

// LevelDB's Snappy blocks, worded as the LevelDB table reader always has.
Result<ByteVector> LevelDbSnappy(ByteSpan data, std::string_view source, std::uint64_t offset,
                                 std::string_view what, std::uint64_t max_size) {
  const char* in = reinterpret_cast<const char*>(data.data());
  std::size_t length = 0;
  if (!snappy::GetUncompressedLength(in, data.size(), &length)) {
    return Status::Corrupt(std::string(source), offset,
                           "a Snappy length header for the " + std::string(what));
  }
  // The header is untrusted: bound it before allocating, first by the configured limit, then by
  // what these compressed bytes can possibly expand to.
  if (length > max_size) {
    return Status::Corrupt(std::string(source), offset,
                           "an uncompressed " + std::string(what) + " size of at most " +
                               std::to_string(max_size) + " bytes",
                           std::to_string(length));
  }
  const std::uint64_t max_expansion = MaxExpansion(BlockCompression::kSnappy, data.size());
  if (length > max_expansion) {
    return Status::Corrupt(std::string(source), offset,
                           "an uncompressed " + std::string(what) + " size of at most " +
                               std::to_string(max_expansion) + " bytes (the most " +
                               std::to_string(data.size()) +
                               " Snappy-compressed bytes can expand to)",
                           std::to_string(length));
  }
  ByteVector out(length);
  if (!snappy::RawUncompress(in, data.size(), reinterpret_cast<char*>(out.data()))) {
    return Status::Corrupt(std::string(source), offset,
                           "valid Snappy data in the " + std::string(what));
  }
  return out;
}

// A zlib stream (window_bits 15: with header; -15: raw deflate) inflated into at most `cap`
// bytes. Nothing announces the uncompressed size, so the buffer starts small and doubles only
// as the stream fills it, never past cap + 1 (the extra byte tells "more than cap" from "exactly
// cap"). Bytes after the end of the stream are ignored, as Mojang's reader ignores them.
Result<ByteVector> InflateBounded(ByteSpan data, int window_bits, std::uint64_t cap,
                                  std::string_view kind, std::string_view source,
                                  std::uint64_t offset, std::string_view what) {
  const auto fail = [&](std::string expected, std::string found) {
    return Status::Corrupt(std::string(source), offset,
                           std::move(expected) + " in the " + std::string(what), std::move(found));
  };
  if (data.size() > std::numeric_limits<uInt>::max()) return fail("a block under 4 GiB", "");
  const std::uint64_t limit = cap + 1;
  z_stream stream;
  std::memset(&stream, 0, sizeof(stream));
  if (inflateInit2(&stream, window_bits) != Z_OK) {
    return fail("a " + std::string(kind), "inflateInit2 failed");
  }
  ByteVector out(std::min<std::uint64_t>(limit, std::max<std::uint64_t>(4096, data.size() * 4)));
  stream.next_in = const_cast<Bytef*>(data.data());
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = Z_OK;
  while (true) {
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if ((rc == Z_OK || rc == Z_BUF_ERROR) && stream.avail_out == 0 && out.size() < limit) {
      const std::size_t used = out.size();
      out.resize(std::min<std::uint64_t>(limit, std::uint64_t{used} * 2));
      stream.next_out = out.data() + used;
      stream.avail_out = static_cast<uInt>(out.size() - used);
      continue;
    }
    break;
  }
  const std::size_t produced = out.size() - stream.avail_out;
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  if (produced > cap) {
    return fail("a " + std::string(kind) + " that inflates to at most " + std::to_string(cap) +
                    " bytes",
                "more");
  }
  if (rc != Z_STREAM_END) {
    if (rc == Z_BUF_ERROR || (rc == Z_OK && stream.avail_in == 0)) {
      return fail("a complete " + std::string(kind),
                  "the stream ends early after " + std::to_string(data.size()) + " bytes");
    }
    return fail("a valid " + std::string(kind), message.empty() ? "zlib error" : message);
  }
  out.resize(produced);
  return out;
}

// Mojang's LevelDB's zlib blocks (type 2 with header, type 4 raw deflate).
Result<ByteVector> MojangInflate(BlockCompression type, ByteSpan data, std::string_view source,
                                 std::uint64_t offset, std::string_view what,
                                 std::uint64_t max_size) {
  const std::uint64_t cap = std::min(MaxExpansion(BlockCompression::kZlib, data.size()), max_size);
  if (type == BlockCompression::kMojangZlib) {
    return InflateBounded(data, 15, cap, "zlib stream with header (block type 2, Mojang's LevelDB)",
                          source, offset, what);
  }
  return InflateBounded(data, -15, cap, "raw deflate stream (block type 4, Mojang's LevelDB)",
                        source, offset, what);
}

// RocksDB's compression types, worded as the RocksDB SST reader always has.
class RocksDbDecompressor {
 public:
  RocksDbDecompressor(std::string_view source, std::uint64_t offset, std::string_view what,
                      std::uint64_t max_size, ByteSpan dictionary)
      : source_(source), offset_(offset), what_(what), max_size_(max_size), dict_(dictionary) {}

  Result<ByteVector> Run(BlockCompression type, std::uint32_t format_version, ByteSpan data) {
    const bool sized = format_version >= 2;
    switch (type) {
      case BlockCompression::kSnappy: return Snappy(data);
      case BlockCompression::kZlib: return Zlib(data, sized);
      case BlockCompression::kLz4:
      case BlockCompression::kLz4hc: return Lz4(type, data, sized);
      case BlockCompression::kZstd:
      case BlockCompression::kZstdNotFinal: return Zstd(type, data);
      case BlockCompression::kBZip2:
      case BlockCompression::kXpress:
        return Status::Unsupported(std::string(source_) + ": byte " + std::to_string(offset_) +
                                   ": the " + std::string(what_) + " is " +
                                   std::string(CompressionName(type)) +
                                   "-compressed; bloomcodec reads none, Snappy, zlib, LZ4, LZ4HC "
                                   "and ZSTD blocks");
      default: return Fail("a known compression type");
    }
  }

 private:
  Status Fail(std::string expected, std::string found = {}) const {
    return Status::Corrupt(std::string(source_), offset_,
                           std::move(expected) + " in the " + std::string(what_), std::move(found));
  }

  // The uncompressed size a header claims, checked against both bounds.
  Status CheckSize(BlockCompression type, std::uint64_t size, std::uint64_t compressed) const {
    if (size > max_size_) {
      return Fail("an uncompressed size of at most " + std::to_string(max_size_) + " bytes",
                  std::to_string(size));
    }
    const std::uint64_t bound = MaxExpansion(type, compressed);
    if (size > bound) {
      return Fail("an uncompressed size of at most " + std::to_string(bound) + " bytes (the most " +
                      std::to_string(compressed) + " " + std::string(CompressionName(type)) +
                      " bytes can expand to)",
                  std::to_string(size));
    }
    return Status();
  }

  // RocksDB's "compress_format_version 2" prefix: the varint32 uncompressed size.
  Result<std::uint32_t> SizePrefix(ByteSpan& data) const {
    ByteReader r(data, source_, offset_);
    Result<std::uint32_t> size = r.ReadVarint32("uncompressed size");
    if (!size.ok()) return Fail("a varint32 uncompressed-size prefix");
    data = r.rest();
    return *size;
  }

  Result<ByteVector> Snappy(ByteSpan data) const {
    const char* in = reinterpret_cast<const char*>(data.data());
    std::size_t length = 0;
    if (!snappy::GetUncompressedLength(in, data.size(), &length)) {
      return Fail("a Snappy length header");
    }
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(BlockCompression::kSnappy, length, data.size()));
    ByteVector out(length);
    if (!snappy::RawUncompress(in, data.size(), reinterpret_cast<char*>(out.data()))) {
      return Fail("valid Snappy data");
    }
    return out;
  }

  Result<ByteVector> Zlib(ByteSpan data, bool sized) const {
    std::uint64_t capacity = 0;
    if (sized) {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t size, SizePrefix(data));
      BLOOMCODEC_RETURN_IF_ERROR(CheckSize(BlockCompression::kZlib, size, data.size()));
      capacity = size;
    } else {
      capacity = std::min(MaxExpansion(BlockCompression::kZlib, data.size()), max_size_);
    }
    if (data.size() > std::numeric_limits<uInt>::max()) return Fail("a block under 4 GiB");
    z_stream stream;
    std::memset(&stream, 0, sizeof(stream));
    if (inflateInit2(&stream, -14) != Z_OK) return Fail("a zlib stream (inflateInit2 failed)");
    if (!dict_.empty() &&
        (dict_.size() > std::numeric_limits<uInt>::max() ||
         inflateSetDictionary(&stream, dict_.data(), static_cast<uInt>(dict_.size())) != Z_OK)) {
      inflateEnd(&stream);
      return Fail("a zlib stream that takes the table's compression dictionary");
    }
    ByteVector out(sized ? capacity : std::min<std::uint64_t>(capacity, data.size() * 5 + 4096));
    stream.next_in = const_cast<Bytef*>(data.data());
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = out.data();
    stream.avail_out = static_cast<uInt>(out.size());
    int rc = Z_OK;
    while (true) {
      rc = inflate(&stream, Z_SYNC_FLUSH);
      if (rc == Z_STREAM_END) break;
      if (rc == Z_OK && !sized && stream.avail_out == 0 && out.size() < capacity) {
        const std::size_t used = out.size();
        out.resize(std::min<std::uint64_t>(capacity, used + used / 5 + 10));
        stream.next_out = out.data() + used;
        stream.avail_out = static_cast<uInt>(out.size() - used);
        continue;
      }
      break;
    }
    const std::size_t produced = out.size() - stream.avail_out;
    inflateEnd(&stream);
    if (rc != Z_STREAM_END) return Fail("a complete raw deflate stream (window bits -14)");
    if (sized && produced != capacity) {
      return Fail(std::to_string(capacity) + " uncompressed bytes as the size prefix says",
                  std::to_string(produced));
    }
    out.resize(produced);
    return out;
  }

  Result<ByteVector> Lz4(BlockCompression type, ByteSpan data, bool sized) const {
    std::uint32_t size = 0;
    if (sized) {
      BLOOMCODEC_ASSIGN_OR_RETURN(size, SizePrefix(data));
    } else {
      if (data.size() < 8) return Fail("an 8-byte LZ4 size header");
      size = boost::endian::load_little_u32(data.data());
      data = data.subspan(8);
    }
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(type, size, data.size()));
    if (data.size() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
        dict_.size() > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      return Fail("a block and a compression dictionary under 2 GiB");
    }
    ByteVector out(size);
    const int n =
        dict_.empty()
            ? LZ4_decompress_safe(reinterpret_cast<const char*>(data.data()),
                                  reinterpret_cast<char*>(out.data()),
                                  static_cast<int>(data.size()), static_cast<int>(size))
            : LZ4_decompress_safe_usingDict(
                  reinterpret_cast<const char*>(data.data()), reinterpret_cast<char*>(out.data()),
                  static_cast<int>(data.size()), static_cast<int>(size),
                  reinterpret_cast<const char*>(dict_.data()), static_cast<int>(dict_.size()));
    if (n < 0) return Fail("valid LZ4 data");
    if (static_cast<std::uint32_t>(n) != size) {
      return Fail(std::to_string(size) + " uncompressed bytes as the size prefix says",
                  std::to_string(n));
    }
    return out;
  }

  Result<ByteVector> Zstd(BlockCompression type, ByteSpan data) const {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t size, SizePrefix(data));
    BLOOMCODEC_RETURN_IF_ERROR(CheckSize(type, size, data.size()));
    ByteVector out(size);
    std::size_t n = 0;
    if (dict_.empty()) {
      n = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
    } else {
      ZSTD_DCtx* ctx = ZSTD_createDCtx();
      if (ctx == nullptr) return Fail("memory for a Zstandard context");
      n = ZSTD_decompress_usingDict(ctx, out.data(), out.size(), data.data(), data.size(),
                                    dict_.data(), dict_.size());
      ZSTD_freeDCtx(ctx);
    }
    if (ZSTD_isError(n)) {
      return Fail("valid Zstandard data", ZSTD_getErrorName(n));
    }
    if (n != size) {
      return Fail(std::to_string(size) + " uncompressed bytes as the size prefix says",
                  std::to_string(n));
    }
    return out;
  }

  std::string_view source_;
  std::uint64_t offset_;
  std::string_view what_;
  std::uint64_t max_size_;
  ByteSpan dict_;
};

}  // namespace

std::string_view ChecksumTypeName(ChecksumType type) {
  switch (type) {
    case ChecksumType::kNone: return "none";
    case ChecksumType::kCrc32c: return "crc32c";
    case ChecksumType::kXxHash: return "xxhash";
    case ChecksumType::kXxHash64: return "xxhash64";
    case ChecksumType::kXxh3: return "xxh3";
  }
  return "unknown";
}

std::string_view CompressionName(BlockCompression type) {
  switch (type) {
    case BlockCompression::kNone: return "NoCompression";
    case BlockCompression::kSnappy: return "Snappy";
    case BlockCompression::kZlib: return "Zlib";
    case BlockCompression::kBZip2: return "BZip2";
    case BlockCompression::kLz4: return "LZ4";
    case BlockCompression::kLz4hc: return "LZ4HC";
    case BlockCompression::kXpress: return "Xpress";
    case BlockCompression::kZstd: return "ZSTD";
    case BlockCompression::kZstdNotFinal: return "ZSTDNotFinal";
    case BlockCompression::kMojangZlib: return "zlib (Mojang)";
    case BlockCompression::kMojangRawDeflate: return "raw deflate (Mojang)";
  }
  return "unknown";
}

std::uint8_t TypeByte(BlockCompression type) {
  if (type == BlockCompression::kMojangZlib) return 2;
  if (type == BlockCompression::kMojangRawDeflate) return 4;
  return static_cast<std::uint8_t>(type);
}

std::uint32_t BlockChecksum(ChecksumType checksum, ByteSpan block, std::uint8_t type) {
  switch (checksum) {
    case ChecksumType::kNone: return 0;
    case ChecksumType::kCrc32c: return BlockTrailerCrc(block, type);
    case ChecksumType::kXxHash: {
      XXH32_state_t* state = XXH32_createState();
      XXH32_reset(state, 0);
      XXH32_update(state, block.data(), block.size());
      XXH32_update(state, &type, 1);
      const std::uint32_t h = XXH32_digest(state);
      XXH32_freeState(state);
      return h;
    }
    case ChecksumType::kXxHash64: {
      XXH64_state_t* state = XXH64_createState();
      XXH64_reset(state, 0);
      XXH64_update(state, block.data(), block.size());
      XXH64_update(state, &type, 1);
      const std::uint64_t h = XXH64_digest(state);
      XXH64_freeState(state);
      return static_cast<std::uint32_t>(h);
    }
    case ChecksumType::kXxh3: {
      // The type byte is folded in arithmetically rather than hashed (RocksDB: "XXH3 of the
      // data, then ModifyChecksumForLastByte"), which lets the block hash be computed once.
      const auto h = static_cast<std::uint32_t>(XXH3_64bits(block.data(), block.size()));
      return h ^ (std::uint32_t{type} * kXxh3TypeByteMultiplier);
    }
  }
  return 0;
}

std::uint32_t ContextModifier(std::uint32_t base_context_checksum, std::uint64_t offset) {
  if (base_context_checksum == 0) return 0;
  const auto low = static_cast<std::uint32_t>(offset);
  const auto high = static_cast<std::uint32_t>(offset >> 32);
  return base_context_checksum ^ (low + high);
}

std::uint32_t StoredBlockChecksum(const TrailerFormat& format, ByteSpan block, std::uint8_t type,
                                  std::uint64_t offset) {
  return BlockChecksum(format.checksum, block, type) +
         ContextModifier(format.base_context_checksum, offset);
}

Status VerifyTrailer(ByteSpan file, const BlockHandle& handle, std::string_view source,
                     const TrailerFormat& format, std::string_view what) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckHandleInFile(handle, file.size(), source, what));
  // LevelDB knows only the masked CRC-32C, whatever the format says.
  const ChecksumType checksum =
      format.family == TableFamily::kLevelDb ? ChecksumType::kCrc32c : format.checksum;
  if (checksum == ChecksumType::kNone) return Status();
  const ByteSpan data = file.subspan(handle.offset, handle.size);
  const std::uint64_t trailer_at = handle.offset + handle.size;
  const std::uint8_t type = file[trailer_at];
  const std::uint32_t stored = boost::endian::load_little_u32(file.data() + trailer_at + 1);
  const std::uint32_t actual = format.family == TableFamily::kLevelDb
                                   ? BlockChecksum(checksum, data, type)
                                   : StoredBlockChecksum(format, data, type, handle.offset);
  if (stored == actual) return Status();
  if (format.family == TableFamily::kLevelDb) {
    return Status::Corrupt(std::string(source), trailer_at + 1,
                           "masked CRC-32C of the " + std::string(what) + " at offset " +
                               std::to_string(handle.offset) + ": " + std::to_string(actual),
                           std::to_string(stored));
  }
  return Status::Corrupt(
      std::string(source), trailer_at + 1,
      std::string(ChecksumTypeName(checksum)) +
          (format.base_context_checksum != 0 ? " context checksum " : " checksum ") +
          Hex32(actual) + " of the " + std::string(what) + " at offset " +
          std::to_string(handle.offset),
      Hex32(stored));
}

Result<BlockCompression> CompressionOf(const TrailerFormat& format, std::uint8_t type,
                                       std::string_view source, std::uint64_t trailer_at,
                                       std::string_view what) {
  const auto compression = static_cast<BlockCompression>(type);
  if (format.family == TableFamily::kLevelDb) {
    if (type <= 1) return compression;
    if (type == 2) return BlockCompression::kMojangZlib;
    if (type == 4) return BlockCompression::kMojangRawDeflate;
    return Status::Corrupt(std::string(source), trailer_at,
                           "block type 0 (none), 1 (Snappy), 2 (zlib, Mojang's LevelDB) or 4 "
                           "(raw deflate, Mojang's LevelDB) in the " +
                               std::string(what) + " trailer",
                           std::to_string(type));
  }
  if (CompressionName(compression) == "unknown" || compression == BlockCompression::kMojangZlib ||
      compression == BlockCompression::kMojangRawDeflate) {
    return Status::Corrupt(std::string(source), trailer_at,
                           "a compression type (0 none, 1 Snappy, 2 zlib, 3 bzip2, 4 LZ4, "
                           "5 LZ4HC, 6 Xpress, 7 ZSTD) in the " +
                               std::string(what) + " trailer",
                           std::to_string(type));
  }
  return compression;
}

Result<ByteVector> Decompress(const TrailerFormat& format, BlockCompression type, ByteSpan data,
                              std::string_view source, std::uint64_t block_offset,
                              std::string_view what, std::uint64_t max_uncompressed_size,
                              ByteSpan dictionary) {
  if (format.family == TableFamily::kLevelDb) {
    if (type == BlockCompression::kMojangZlib || type == BlockCompression::kMojangRawDeflate) {
      return MojangInflate(type, data, source, block_offset, what, max_uncompressed_size);
    }
    // CompressionOf admits nothing else for LevelDB.
    return LevelDbSnappy(data, source, block_offset, what, max_uncompressed_size);
  }
  RocksDbDecompressor d(source, block_offset, what, max_uncompressed_size, dictionary);
  return d.Run(type, format.format_version, data);
}

bool CompressBlock(BlockCompression type, ByteSpan raw, ByteVector& out) {
  out.clear();
  if (type == BlockCompression::kSnappy) {
    std::string s;
    snappy::Compress(reinterpret_cast<const char*>(raw.data()), raw.size(), &s);
    out.assign(s.begin(), s.end());
    return true;
  }
  if (raw.size() > std::numeric_limits<std::uint32_t>::max()) return false;
  if (type == BlockCompression::kMojangZlib || type == BlockCompression::kMojangRawDeflate) {
    z_stream stream;
    std::memset(&stream, 0, sizeof(stream));
    const int window_bits = type == BlockCompression::kMojangZlib ? 15 : -15;
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return false;
    }
    out.resize(deflateBound(&stream, static_cast<uLong>(raw.size())));
    stream.next_in = const_cast<Bytef*>(raw.data());
    stream.avail_in = static_cast<uInt>(raw.size());
    stream.next_out = out.data();
    stream.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&stream, Z_FINISH);
    out.resize(out.size() - stream.avail_out);
    deflateEnd(&stream);
    return rc == Z_STREAM_END;
  }
  ByteWriter(out).PutVarint32(static_cast<std::uint32_t>(raw.size()));
  const std::size_t header = out.size();
  switch (type) {
    case BlockCompression::kZlib: {
      // RocksDB's Zlib_Compress with its default CompressionOptions: raw deflate, window_bits
      // -14, the default level, memLevel 8, the default strategy, no dictionary.
      z_stream stream;
      std::memset(&stream, 0, sizeof(stream));
      if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY) !=
          Z_OK) {
        return false;
      }
      const uLong bound = deflateBound(&stream, static_cast<uLong>(raw.size()));
      out.resize(header + bound);
      stream.next_in = const_cast<Bytef*>(raw.data());
      stream.avail_in = static_cast<uInt>(raw.size());
      stream.next_out = out.data() + header;
      stream.avail_out = static_cast<uInt>(bound);
      const int rc = deflate(&stream, Z_FINISH);
      out.resize(out.size() - stream.avail_out);
      deflateEnd(&stream);
      return rc == Z_STREAM_END;
    }
    case BlockCompression::kZstd: {
      out.resize(header + ZSTD_compressBound(raw.size()));
      const std::size_t n =
          ZSTD_compress(out.data() + header, out.size() - header, raw.data(), raw.size(), 3);
      if (ZSTD_isError(n)) return false;
      out.resize(header + n);
      return true;
    }
    case BlockCompression::kLz4: {
      // RocksDB compresses with a fresh stream (LZ4_compress_fast_continue, acceleration 1), not
      // LZ4_compress_default: below 64 KiB the two index their match tables differently (32-bit
      // against 16-bit positions) and can choose different matches, so the bytes differ.
      LZ4_stream_t stream;
      if (LZ4_initStream(&stream, sizeof(stream)) == nullptr) return false;
      const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
      out.resize(header + static_cast<std::size_t>(bound));
      const int n = LZ4_compress_fast_continue(&stream, reinterpret_cast<const char*>(raw.data()),
                                               reinterpret_cast<char*>(out.data() + header),
                                               static_cast<int>(raw.size()), bound, 1);
      if (n <= 0) return false;
      out.resize(header + static_cast<std::size_t>(n));
      return true;
    }
    case BlockCompression::kLz4hc: {
      // As RocksDB: a fresh HC stream, LZ4_compress_HC_continue. RocksDB resets the stream to its
      // default level 0, which LZ4 takes for its own default (9), the level a created stream
      // starts at. The stream is large (about 256 KiB): off the stack.
      const std::unique_ptr<LZ4_streamHC_t, int (*)(LZ4_streamHC_t*)> stream(LZ4_createStreamHC(),
                                                                             LZ4_freeStreamHC);
      if (stream == nullptr) return false;
      const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
      out.resize(header + static_cast<std::size_t>(bound));
      const int n = LZ4_compress_HC_continue(
          stream.get(), reinterpret_cast<const char*>(raw.data()),
          reinterpret_cast<char*>(out.data() + header), static_cast<int>(raw.size()), bound);
      if (n <= 0) return false;
      out.resize(header + static_cast<std::size_t>(n));
      return true;
    }
    default: return false;
  }
}

}  // namespace bloomcodec::blocktable
