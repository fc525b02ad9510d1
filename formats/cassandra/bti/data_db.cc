#include "cassandra/bti/data_db.h"

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>

#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra::bti {
namespace {

// Cassandra requires a power of two; we read chunks up to this size (64 MiB).
constexpr std::uint32_t kMaxChunkLength = 1u << 26;

std::uint32_t Crc32(ByteSpan bytes) {
  return static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

std::optional<ChunkCompressor> CompressorOf(std::string_view class_name) {
  const std::size_t dot = class_name.rfind('.');
  if (dot != std::string_view::npos) class_name.remove_prefix(dot + 1);
  if (class_name == "LZ4Compressor") return ChunkCompressor::kLz4;
  if (class_name == "SnappyCompressor") return ChunkCompressor::kSnappy;
  if (class_name == "DeflateCompressor") return ChunkCompressor::kDeflate;
  if (class_name == "ZstdCompressor") return ChunkCompressor::kZstd;
  if (class_name == "NoopCompressor") return ChunkCompressor::kNoop;
  return std::nullopt;
}

std::string_view ClassNameOf(ChunkCompressor c) {
  switch (c) {
    case ChunkCompressor::kLz4: return "LZ4Compressor";
    case ChunkCompressor::kSnappy: return "SnappyCompressor";
    case ChunkCompressor::kDeflate: return "DeflateCompressor";
    case ChunkCompressor::kZstd: return "ZstdCompressor";
    case ChunkCompressor::kNoop: return "NoopCompressor";
  }
  return "?";
}

Result<CompressionInfo> ReadLayout(ByteSpan file, const std::string& source, bool with_max) {
  CompressionInfo info;
  ByteReader r(file, source);
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint16_t name_length,
                              r.ReadBigU16("compressor class name length"));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, r.ReadBytes(name_length, "compressor class name"));
  info.compressor_class.assign(name.begin(), name.end());
  const std::uint64_t options_at = r.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int32_t options, r.ReadBigI32("option count"));
  if (options < 0 || static_cast<std::uint64_t>(options) * 4 > r.remaining()) {
    return r.ErrorAt(options_at, "an option count the file can hold", std::to_string(options));
  }
  for (std::int32_t i = 0; i < 2 * options; ++i) {
    BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint16_t n, r.ReadBigU16("option string length"));
    BLOOMCODEC_RETURN_IF_ERROR(r.Skip(n, "option string"));
  }
  const std::uint64_t chunk_at = r.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int32_t chunk_length, r.ReadBigI32("chunk length"));
  if (chunk_length <= 0 || static_cast<std::uint32_t>(chunk_length) > kMaxChunkLength ||
      (chunk_length & (chunk_length - 1)) != 0) {
    return r.ErrorAt(chunk_at, "a chunk length that is a power of two up to 64 MiB",
                     std::to_string(chunk_length));
  }
  info.chunk_length = static_cast<std::uint32_t>(chunk_length);
  if (with_max) {
    const std::uint64_t at = r.offset();
    BLOOMCODEC_ASSIGN_OR_RETURN(const std::int32_t max, r.ReadBigI32("max compressed length"));
    if (max < 0) return r.ErrorAt(at, "a max compressed length >= 0", std::to_string(max));
    info.max_compressed_length = static_cast<std::uint32_t>(max);
  }
  const std::uint64_t length_at = r.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int64_t data_length, r.ReadBigI64("data length"));
  const std::uint64_t count_at = r.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int32_t count, r.ReadBigI32("chunk count"));
  if (count < 0 || static_cast<std::uint64_t>(count) * 8 != r.remaining()) {
    return r.ErrorAt(count_at,
                     "a chunk count whose offsets fill the rest of the file (" +
                         std::to_string(r.remaining() / 8) + ")",
                     std::to_string(count));
  }
  const std::uint64_t cap = static_cast<std::uint64_t>(count) * info.chunk_length;
  const std::uint64_t floor = count == 0 ? 0 : cap - info.chunk_length;
  if (data_length < 0 || static_cast<std::uint64_t>(data_length) > cap ||
      (count > 0 && static_cast<std::uint64_t>(data_length) <= floor)) {
    return r.ErrorAt(length_at,
                     "a data length that " + std::to_string(count) + " chunks of " +
                         std::to_string(info.chunk_length) + " bytes hold",
                     std::to_string(data_length));
  }
  info.data_length = static_cast<std::uint64_t>(data_length);
  info.chunk_offsets.reserve(static_cast<std::size_t>(count));
  for (std::int32_t i = 0; i < count; ++i) {
    const std::uint64_t at = r.offset();
    BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t off, r.ReadBigU64("chunk offset"));
    // Each chunk holds at least its 4-byte checksum.
    const bool increasing =
        i == 0 || (off >= info.chunk_offsets.back() && off - info.chunk_offsets.back() >= 4);
    if (i == 0 ? off != 0 : !increasing) {
      return r.ErrorAt(at,
                       i == 0 ? std::string("the first chunk at offset 0")
                              : "chunk offsets increasing by 4 bytes at least (after " +
                                    std::to_string(info.chunk_offsets.back()) + ")",
                       std::to_string(off));
    }
    info.chunk_offsets.push_back(off);
  }
  const std::optional<ChunkCompressor> c = CompressorOf(info.compressor_class);
  if (!c) {
    return Status::Unsupported(source + ": compressor '" + info.compressor_class +
                               "' (read here: LZ4Compressor, SnappyCompressor, DeflateCompressor, "
                               "ZstdCompressor, NoopCompressor)");
  }
  info.compressor = *c;
  return info;
}

}  // namespace

bool HasMaxCompressedLength(std::string_view version, std::string_view sstable_format) {
  if (sstable_format == "bti") return true;
  return version >= "na";
}

std::string_view CompressorName(ChunkCompressor c) {
  switch (c) {
    case ChunkCompressor::kLz4: return "LZ4";
    case ChunkCompressor::kSnappy: return "Snappy";
    case ChunkCompressor::kDeflate: return "Deflate";
    case ChunkCompressor::kZstd: return "Zstd";
    case ChunkCompressor::kNoop: return "Noop";
  }
  return "?";
}

Result<CompressionInfo> ReadCompressionInfo(ByteSpan file, std::string_view source_view,
                                            bool has_max_compressed_length) {
  const std::string source(source_view);
  Result<CompressionInfo> info = ReadLayout(file, source, has_max_compressed_length);
  if (info.ok() || info.status().code() == StatusCode::kUnsupported) return info;
  Result<CompressionInfo> other = ReadLayout(file, source, !has_max_compressed_length);
  if (other.ok()) return other;
  return info.status();
}

std::uint64_t DataReader::length() const {
  return info_ != nullptr ? info_->data_length : file_.size();
}

Status DataReader::LoadChunk(std::size_t index) {
  if (chunk_index_ == index) return Status();
  chunk_index_.reset();
  const std::vector<std::uint64_t>& offs = info_->chunk_offsets;
  const std::uint64_t begin = offs[index];
  const std::uint64_t end = index + 1 < offs.size() ? offs[index + 1] : file_.size();
  if (end > file_.size() || begin > end || end - begin < 4) {
    return Status::Corrupt(source_, std::min<std::uint64_t>(begin, file_.size()),
                           "chunk " + std::to_string(index) + " (bytes " + std::to_string(begin) +
                               ".." + std::to_string(end) + " with its checksum) inside the file",
                           std::to_string(file_.size()) + " bytes");
  }
  Touched(begin, end);
  const ByteSpan compressed = file_.subspan(begin, end - begin - 4);
  const std::size_t crc_at = static_cast<std::size_t>(end - 4);
  const std::uint32_t stored = (std::uint32_t{file_[crc_at]} << 24) |
                               (std::uint32_t{file_[crc_at + 1]} << 16) |
                               (std::uint32_t{file_[crc_at + 2]} << 8) | file_[crc_at + 3];
  const std::uint32_t actual = Crc32(compressed);
  if (stored != actual) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "CRC32 %08x (of the chunk's bytes)", actual);
    char found[16];
    std::snprintf(found, sizeof found, "%08x", stored);
    return Status::Corrupt(source_, crc_at,
                           "chunk " + std::to_string(index) + "'s checksum: " + buf, found);
  }
  const std::uint64_t chunk_begin = static_cast<std::uint64_t>(index) * info_->chunk_length;
  const std::size_t expected = static_cast<std::size_t>(
      std::min<std::uint64_t>(info_->chunk_length, info_->data_length - chunk_begin));
  auto bad = [&](const std::string& why) {
    return Status::Corrupt(source_, begin,
                           "chunk " + std::to_string(index) + " to " +
                               CompressorName(info_->compressor).data() + "-decompress to " +
                               std::to_string(expected) + " bytes",
                           why);
  };
  if (info_->max_compressed_length && compressed.size() > *info_->max_compressed_length) {
    // Stored uncompressed (it did not compress below the table's min_compress_ratio).
    if (compressed.size() != expected) return bad(std::to_string(compressed.size()) + " raw bytes");
    chunk_.assign(compressed.begin(), compressed.end());
  } else {
    chunk_.assign(expected, 0);
    switch (info_->compressor) {
      case ChunkCompressor::kLz4: {
        if (compressed.size() < 4) return bad("no 4-byte length header");
        const std::uint32_t n = compressed[0] | (std::uint32_t{compressed[1]} << 8) |
                                (std::uint32_t{compressed[2]} << 16) |
                                (std::uint32_t{compressed[3]} << 24);
        if (n != expected) return bad("a header saying " + std::to_string(n));
        const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(compressed.data() + 4),
                                            reinterpret_cast<char*>(chunk_.data()),
                                            static_cast<int>(compressed.size() - 4),
                                            static_cast<int>(expected));
        if (got < 0 || static_cast<std::size_t>(got) != expected) {
          return bad(got < 0 ? "an invalid LZ4 block" : std::to_string(got) + " bytes");
        }
        break;
      }
      case ChunkCompressor::kSnappy: {
        size_t n = 0;
        if (snappy_uncompressed_length(reinterpret_cast<const char*>(compressed.data()),
                                       compressed.size(), &n) != SNAPPY_OK ||
            n != expected) {
          return bad("a Snappy length of " + std::to_string(n));
        }
        if (snappy_uncompress(reinterpret_cast<const char*>(compressed.data()), compressed.size(),
                              reinterpret_cast<char*>(chunk_.data()), &n) != SNAPPY_OK ||
            n != expected) {
          return bad("invalid Snappy data");
        }
        break;
      }
      case ChunkCompressor::kDeflate: {
        uLongf n = static_cast<uLongf>(expected);
        const int rc = uncompress(chunk_.data(), &n, compressed.data(), compressed.size());
        if (rc != Z_OK || n != expected) {
          return bad(rc == Z_OK ? std::to_string(n) + " bytes" : "invalid zlib data");
        }
        break;
      }
      case ChunkCompressor::kZstd: {
        const std::size_t n =
            ZSTD_decompress(chunk_.data(), expected, compressed.data(), compressed.size());
        if (ZSTD_isError(n) || n != expected) {
          return bad(ZSTD_isError(n) ? ZSTD_getErrorName(n) : std::to_string(n) + " bytes");
        }
        break;
      }
      case ChunkCompressor::kNoop:  // the bytes as they are
        if (compressed.size() != expected) return bad(std::to_string(compressed.size()) + " bytes");
        chunk_.assign(compressed.begin(), compressed.end());
        break;
    }
  }
  chunk_index_ = index;
  ++chunks_read_;
  return Status();
}

Status DataReader::Append(std::uint64_t position, std::uint64_t n, ByteVector& out) {
  const std::uint64_t len = length();
  if (position > len || n > len - position) {
    return Status::Corrupt(source_, position,
                           std::to_string(n) + " bytes inside the " + std::to_string(len) +
                               " bytes of data" + (info_ ? " (uncompressed)" : ""));
  }
  if (info_ == nullptr) {
    out.insert(out.end(), file_.begin() + position, file_.begin() + position + n);
    if (n > 0) Touched(position, position + n);
    return Status();
  }
  while (n > 0) {
    const std::size_t index = static_cast<std::size_t>(position / info_->chunk_length);
    BLOOMCODEC_RETURN_IF_ERROR(LoadChunk(index));
    const std::uint64_t in_chunk =
        position - static_cast<std::uint64_t>(index) * info_->chunk_length;
    const std::uint64_t take = std::min<std::uint64_t>(n, chunk_.size() - in_chunk);
    out.insert(out.end(), chunk_.begin() + in_chunk, chunk_.begin() + in_chunk + take);
    position += take;
    n -= take;
  }
  return Status();
}

Result<ByteVector> DataReader::Read(std::uint64_t position, std::uint64_t n) {
  ByteVector out;
  if (info_ != nullptr && position <= length() && n <= length() - position) {
    out.reserve(static_cast<std::size_t>(n));
  }
  BLOOMCODEC_RETURN_IF_ERROR(Append(position, n, out));
  return out;
}

Result<ByteVector> DataReader::ReadPartitionKey(std::uint64_t position) {
  ByteVector key;
  BLOOMCODEC_RETURN_IF_ERROR(ReadPartitionKeyInto(position, key));
  return key;
}

Status DataReader::ReadPartitionKeyInto(std::uint64_t position, ByteVector& key) {
  BLOOMCODEC_ASSIGN_OR_RETURN(const ByteSpan view, PartitionKeyAt(position, key));
  if (view.data() != key.data()) key.assign(view.begin(), view.end());
  return Status();
}

Result<ByteSpan> DataReader::PartitionKeyAt(std::uint64_t position, ByteVector& buffer) {
  // The usual key lies whole, with its length, in the bytes at hand (an uncompressed file, or
  // the chunk loaded last): no copy. Anything else, errors included, goes the general way.
  ByteSpan at_hand;
  std::uint64_t start = 0;
  if (info_ == nullptr) {
    at_hand = file_;
  } else if (chunk_index_) {
    at_hand = ByteSpan(chunk_);
    start = static_cast<std::uint64_t>(*chunk_index_) * info_->chunk_length;
  }
  if (position >= start && position - start <= at_hand.size() &&
      at_hand.size() - (position - start) >= 2) {
    const std::size_t rel = static_cast<std::size_t>(position - start);
    const std::size_t n = (std::size_t{at_hand[rel]} << 8) | at_hand[rel + 1];
    if (at_hand.size() - rel - 2 >= n) {
      if (info_ == nullptr) Touched(position, position + 2 + n);
      return at_hand.subspan(rel + 2, n);
    }
  }
  buffer.clear();
  BLOOMCODEC_RETURN_IF_ERROR(Append(position, 2, buffer));
  const std::uint64_t n = (std::uint64_t{buffer[0]} << 8) | buffer[1];
  buffer.clear();
  BLOOMCODEC_RETURN_IF_ERROR(Append(position + 2, n, buffer));
  return ByteSpan(buffer);
}

Result<CompressedData> WriteCompressedData(ByteSpan data, ChunkCompressor compressor,
                                           std::uint32_t chunk_length,
                                           bool with_max_compressed_length,
                                           std::uint32_t max_compressed_length) {
  if (chunk_length == 0 || chunk_length > kMaxChunkLength ||
      (chunk_length & (chunk_length - 1)) != 0) {
    return Status::InvalidArgument("a chunk length must be a power of two up to 64 MiB");
  }
  CompressedData out;
  std::vector<std::uint64_t> offsets;
  for (std::size_t at = 0; at < data.size(); at += chunk_length) {
    const ByteSpan piece = data.subspan(at, std::min<std::size_t>(chunk_length, data.size() - at));
    offsets.push_back(out.data_db.size());
    ByteVector c;
    switch (compressor) {
      case ChunkCompressor::kLz4: {
        c.resize(4 + LZ4_compressBound(static_cast<int>(piece.size())));
        for (int i = 0; i < 4; ++i) c[i] = static_cast<std::uint8_t>(piece.size() >> (8 * i));
        const int n = LZ4_compress_default(
            reinterpret_cast<const char*>(piece.data()), reinterpret_cast<char*>(c.data() + 4),
            static_cast<int>(piece.size()), static_cast<int>(c.size() - 4));
        if (n <= 0) return Status::Internal("LZ4 compression failed");
        c.resize(4 + n);
        break;
      }
      case ChunkCompressor::kSnappy: {
        size_t n = snappy_max_compressed_length(piece.size());
        c.resize(n);
        if (snappy_compress(reinterpret_cast<const char*>(piece.data()), piece.size(),
                            reinterpret_cast<char*>(c.data()), &n) != SNAPPY_OK) {
          return Status::Internal("Snappy compression failed");
        }
        c.resize(n);
        break;
      }
      case ChunkCompressor::kDeflate: {
        uLongf n = compressBound(static_cast<uLong>(piece.size()));
        c.resize(n);
        if (compress2(c.data(), &n, piece.data(), piece.size(), Z_DEFAULT_COMPRESSION) != Z_OK) {
          return Status::Internal("zlib compression failed");
        }
        c.resize(n);
        break;
      }
      case ChunkCompressor::kZstd: {
        c.resize(ZSTD_compressBound(piece.size()));
        const std::size_t n = ZSTD_compress(c.data(), c.size(), piece.data(), piece.size(), 3);
        if (ZSTD_isError(n)) return Status::Internal("Zstd compression failed");
        c.resize(n);
        break;
      }
      case ChunkCompressor::kNoop: c.assign(piece.begin(), piece.end()); break;
    }
    if (with_max_compressed_length && c.size() > max_compressed_length) {
      c.assign(piece.begin(), piece.end());  // the 4.0 writer stores it uncompressed
      if (c.size() <= max_compressed_length) {
        return Status::InvalidArgument("a max compressed length at least the chunk length");
      }
    }
    out.data_db.insert(out.data_db.end(), c.begin(), c.end());
    AppendBigEndian(out.data_db, Crc32(c), 4);
  }
  ByteVector& info = out.compression_info;
  const std::string_view name = ClassNameOf(compressor);
  AppendBigEndian(info, name.size(), 2);
  info.insert(info.end(), name.begin(), name.end());
  AppendBigEndian(info, 0, 4);  // options
  AppendBigEndian(info, chunk_length, 4);
  if (with_max_compressed_length) AppendBigEndian(info, max_compressed_length, 4);
  AppendBigEndian(info, data.size(), 8);
  AppendBigEndian(info, offsets.size(), 4);
  for (std::uint64_t o : offsets) AppendBigEndian(info, o, 8);
  return out;
}

}  // namespace bloomcodec::cassandra::bti
