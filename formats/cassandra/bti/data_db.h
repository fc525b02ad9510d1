// Reading partition keys out of a Cassandra / ScyllaDB Data.db (plain, or compressed in chunks
// described by CompressionInfo.db) and out of a BTI Rows.db: where the partition index of a BTI
// sstable (partitions_db.h) leads.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(bti::CompressionInfo info,
//       bti::ReadCompressionInfo(info_bytes, "CompressionInfo.db", "da"));
//   bti::DataReader data(data_bytes, "Data.db", &info);
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector key, data.ReadPartitionKey(position));
//
// CompressionInfo.db (CompressionMetadata): the compressor's class name (u16 BE length + modified
// UTF-8), an i32 option count and as many (name, value) string pairs, the i32 chunk length, from
// BIG "na" (4.0) on and in BTI an i32 max compressed length, the i64 uncompressed data length,
// an i32 chunk count and that many i64 chunk offsets into Data.db. All big-endian. ScyllaDB's
// ms / mt keep the 3.x layout (no max compressed length). Chunk i runs from offset i to offset
// i+1 (the last to the end of Data.db) and ends in a BE CRC32 of its compressed bytes; it holds
// chunk length uncompressed bytes (the last one the rest of the data length). The compressors:
// LZ4Compressor (an LE u32 uncompressed length, then an LZ4 block), SnappyCompressor (raw
// Snappy), DeflateCompressor (zlib stream), ZstdCompressor (a Zstandard frame) and 4.0's
// NoopCompressor (the bytes as they are); another class is Unsupported. A chunk longer
// than the max compressed length is stored uncompressed (4.0+).
//
// A partition starts with its key: u16 BE length + key bytes; so does a Rows.db entry.
//
// Compatibility contract: the key bytes as Cassandra reads them. Stricter than the original,
// which checks a chunk's CRC only with crc_check_chance: every chunk read is checked, and a CRC
// mismatch, a chunk that does not decompress to its length, offsets that do not increase inside
// Data.db, or a key past the data length is Corrupt naming the file and offset.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "cassandra/bti/page_window.h"

namespace bloomcodec::cassandra::bti {

enum class ChunkCompressor { kLz4, kSnappy, kDeflate, kZstd, kNoop };

struct CompressionInfo {
  std::string
      compressor_class;  // as written, e.g. "org.apache.cassandra.io.compress.LZ4Compressor"
  ChunkCompressor compressor = ChunkCompressor::kLz4;
  std::uint32_t chunk_length = 0;
  std::optional<std::uint32_t> max_compressed_length;  // 4.0+ layout
  std::uint64_t data_length = 0;
  std::vector<std::uint64_t> chunk_offsets;
};

// Whether the version's CompressionInfo.db has the max compressed length (BIG na and later,
// every BTI version; not ScyllaDB's ms / mt).
bool HasMaxCompressedLength(std::string_view version, std::string_view sstable_format);

// Reads a CompressionInfo.db in the version's layout; when the file does not add up in that
// layout but does in the other, the other (the file decides; the bytes are unambiguous).
Result<CompressionInfo> ReadCompressionInfo(ByteSpan file, std::string_view source,
                                            bool has_max_compressed_length);

// "LZ4", "Snappy", "Deflate", "Zstd", "Noop".
std::string_view CompressorName(ChunkCompressor c);

// Uncompressed bytes of a Data.db, through its chunks when `info` is given.
class DataReader {
 public:
  DataReader(ByteSpan file, std::string_view source, const CompressionInfo* info)
      : file_(file), source_(source), info_(info) {}

  // The uncompressed length (the file's size when not compressed).
  std::uint64_t length() const;
  // The n bytes at uncompressed `position` (across chunks).
  Result<ByteVector> Read(std::uint64_t position, std::uint64_t n);
  // u16 BE length + key at `position`.
  Result<ByteVector> ReadPartitionKey(std::uint64_t position);
  // The same into `key` (cleared first; no allocation once it has the capacity): a streaming
  // reader's one buffer for every key.
  Status ReadPartitionKeyInto(std::uint64_t position, ByteVector& key);
  // The same as a view, without a copy where it can: into the bytes at hand when the key lies
  // whole in them (an uncompressed file, or the chunk loaded last), else into `buffer` as
  // ReadPartitionKeyInto reads it. Valid until the next call on this reader or on `buffer`.
  Result<ByteSpan> PartitionKeyAt(std::uint64_t position, ByteVector& buffer);
  std::uint64_t chunks_read() const { return chunks_read_; }
  // Called with the byte range [begin, end) of the file each read uses (a whole chunk with its
  // checksum when compressed), for a reader that gives back the pages behind it.
  void set_touched(std::function<void(std::uint64_t, std::uint64_t)> touched) {
    touched_ = std::move(touched);
  }
  // The same for the usual reader, a PageWindow over the file (instead of set_touched): its
  // Touch, called for every key of an uncompressed Data.db, is inlined.
  void set_window(PageWindow* window) { window_ = window; }

 private:
  Status LoadChunk(std::size_t index);
  // Appends the n bytes at uncompressed `position` to `out`.
  Status Append(std::uint64_t position, std::uint64_t n, ByteVector& out);

  ByteSpan file_;
  std::string source_;
  const CompressionInfo* info_;
  std::optional<std::size_t> chunk_index_;
  ByteVector chunk_;
  std::uint64_t chunks_read_ = 0;
  std::function<void(std::uint64_t, std::uint64_t)> touched_;
  PageWindow* window_ = nullptr;

  void Touched(std::uint64_t begin, std::uint64_t end) {
    if (window_ != nullptr) {
      window_->Touch(begin, end);
    } else if (touched_) {
      touched_(begin, end);
    }
  }
};

// Writers from the specification, for tests and fuzz seeds: `data` in chunks of `chunk_length`,
// each compressed (stored as is when that is longer than `max_compressed_length`), followed by
// its CRC32; and the matching CompressionInfo.db.
struct CompressedData {
  ByteVector data_db;
  ByteVector compression_info;
};
Result<CompressedData> WriteCompressedData(ByteSpan data, ChunkCompressor compressor,
                                           std::uint32_t chunk_length,
                                           bool with_max_compressed_length,
                                           std::uint32_t max_compressed_length = 0x7FFFFFFF);

}  // namespace bloomcodec::cassandra::bti
