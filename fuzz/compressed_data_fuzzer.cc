// CompressionInfo.db and the chunks of a compressed Data.db (LZ4, Snappy, Deflate, Zstd, each
// with its CRC32). Byte 0 picks the mode.
// * Bit 7 clear: then a u16 BE length L, L bytes of CompressionInfo.db, then Data.db. Any bytes
//   give a parsed CompressionInfo, a Corrupt status inside it or Unsupported (another class);
//   reading keys and bytes at any uncompressed position gives exactly the bytes asked or a
//   Corrupt status naming Data.db. DSE's encryption read from the same bytes is named only for
//   an encrypting class, which our reader refuses as Unsupported. The byte-comparable form of
//   the Data.db bytes as a partition key, in each encoding and for both tokens, has every prefix
//   of itself as a prefix and no longer path.
// * Bit 7 set: the rest is data, written in chunks by our writer (bits 0-1 the compressor, bit 2
//   the 4.0 layout, bits 3-5 the chunk length 16 << n) and read back whole: the same bytes. Then
//   one byte of the Data.db flipped: reading gives the data or a Corrupt status, never a crash.
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/encryption.h"
#include "cassandra/bti/key_encoding.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::cassandra::bti;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  ++data;
  --size;
  if (mode & 0x80) {
    const ChunkCompressor compressor = static_cast<ChunkCompressor>(mode & 3);
    const bool with_max = (mode & 4) != 0;
    const std::uint32_t chunk_length = 16u << ((mode >> 3) & 7);
    const ByteSpan plain(data, size);
    Result<CompressedData> written = WriteCompressedData(plain, compressor, chunk_length, with_max);
    FUZZ_CHECK(written.ok());
    Result<CompressionInfo> info =
        ReadCompressionInfo(written->compression_info, "CompressionInfo.db", with_max);
    FUZZ_CHECK(info.ok());
    FUZZ_CHECK(info->compressor == compressor && info->data_length == size);
    DataReader reader(written->data_db, "Data.db", &*info);
    Result<ByteVector> back = reader.Read(0, size);
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(fuzz::SameBytes(*back, plain));
    if (!written->data_db.empty()) {
      ByteVector damaged = written->data_db;
      damaged[size % damaged.size()] ^= static_cast<std::uint8_t>(1 + mode);
      DataReader bad(damaged, "Data.db", &*info);
      Result<ByteVector> r = bad.Read(0, size);
      if (r.ok()) {
        FUZZ_CHECK(r->size() == size);
      } else {
        fuzz::CheckNamesSource(r.status(), "Data.db");
      }
    }
    return 0;
  }
  if (size < 2) return 0;
  const std::size_t info_length = std::min<std::size_t>((data[0] << 8) | data[1], size - 2);
  const ByteSpan info_bytes(data + 2, info_length);
  const ByteSpan data_db(data + 2 + info_length, size - 2 - info_length);
  const std::optional<SstableEncryption> encrypted =
      SstableEncryptionOf(info_bytes, "CompressionInfo.db", "bb", "bti");
  for (const KeyEncoding e : {KeyEncoding::kLegacy, KeyEncoding::kOss41, KeyEncoding::kOss50}) {
    for (const TokenKind t : {TokenKind::kMurmur3, TokenKind::kByteOrdered}) {
      const KeyForm form{e, t};
      const std::int64_t token = static_cast<std::int64_t>(size * 0x9E3779B97F4A7C15ULL);
      ByteVector whole;
      AppendKeyForm(form, token, data_db, whole);
      FUZZ_CHECK(whole.size() >= 3 && whole.size() <= 2 * data_db.size() * 2 + 16 + 2);
      FUZZ_CHECK(IsKeyFormPrefix(form, token, data_db, whole));
      FUZZ_CHECK(IsKeyFormPrefix(form, token, data_db, ByteSpan(whole).first(whole.size() / 2)));
      whole.push_back(0x38);
      FUZZ_CHECK(!IsKeyFormPrefix(form, token, data_db, whole));
    }
  }
  for (bool with_max : {false, true}) {
    Result<CompressionInfo> info = ReadCompressionInfo(info_bytes, "CompressionInfo.db", with_max);
    if (encrypted) FUZZ_CHECK(!info.ok());  // an encrypting class is never one we read
    if (!info.ok()) {
      fuzz::CheckNamesSource(info.status(), "CompressionInfo.db");
      // Damage has an offset inside the file; a compressor class we do not read is Unsupported.
      const std::optional<std::uint64_t> at = info.status().offset();
      FUZZ_CHECK(info.status().code() == StatusCode::kUnsupported ||
                 (at.has_value() && *at <= info_length));
      continue;
    }
    FUZZ_CHECK(info->chunk_offsets.size() * 8 <= info_length);
    DataReader reader(data_db, "Data.db", &*info);
    const std::uint64_t length = reader.length();
    for (std::uint64_t at : {std::uint64_t{0}, length / 2, length > 3 ? length - 3 : 0}) {
      Result<ByteVector> key = reader.ReadPartitionKey(at);
      if (key.ok()) {
        FUZZ_CHECK(key->size() <= 0xFFFF && key->size() <= length);
        // Read again, the key lies in the chunk at hand (one copy): the same bytes, and the
        // general read's.
        Result<ByteVector> again = reader.ReadPartitionKey(at);
        FUZZ_CHECK(again.ok() && fuzz::SameBytes(*again, *key));
        Result<ByteVector> whole = reader.Read(at, 2 + key->size());
        FUZZ_CHECK(whole.ok() && ((std::size_t{(*whole)[0]} << 8) | (*whole)[1]) == key->size());
        FUZZ_CHECK(fuzz::SameBytes(ByteSpan(*whole).subspan(2), *key));
      } else {
        fuzz::CheckNamesSource(key.status(), "Data.db");
      }
      Result<ByteVector> bytes = reader.Read(at, 3);
      FUZZ_CHECK(!bytes.ok() || bytes->size() == 3);
    }
  }
  // Plain Data.db (no CompressionInfo.db): only the file's own bytes.
  DataReader plain(data_db, "Data.db", nullptr);
  Result<ByteVector> key = plain.ReadPartitionKey(0);
  FUZZ_CHECK(!key.ok() || key->size() + 2 <= data_db.size());
  if (key.ok()) {
    FUZZ_CHECK(fuzz::SameBytes(data_db.subspan(2, key->size()), *key));
  } else {  // refused only when the length or the key runs past the end
    FUZZ_CHECK(data_db.size() < 2 ||
               ((std::size_t{data_db[0]} << 8) | data_db[1]) > data_db.size() - 2);
  }
  return 0;
}
