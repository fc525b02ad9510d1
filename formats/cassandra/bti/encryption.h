// Internal to formats/cassandra: DSE's transparent data encryption of a trie-indexed sstable, as
// its CompressionInfo.db shows it, and the `unsupported` finding that says what cannot be read.
//
//   if (auto e = ReadSstableEncryption(prefix + "CompressionInfo.db", "bb", "bti")) {
//     report.findings.push_back(EncryptionFinding(*e, prefix + "CompressionInfo.db"));
//     if (e->indexes_encrypted) ...  // Partitions.db and Rows.db are ciphertext too
//   }
//
// Facts (datastax/cassandra at 031e185; FORMAT.md "Encrypted sstables"): a table is encrypted
// through its compression options, with a compressor class that encrypts (`Encryptor`, or
// `EncryptingLZ4Compressor` / `EncryptingDeflateCompressor` / `EncryptingSnappyCompressor`,
// options cipher_algorithm, secret_key_strength, key_provider or system_key_file), so
// CompressionInfo.db names it and Data.db's chunks are ciphertext. From BTI version `ba` (DSE
// 6.8: "encrypted indices and metadata") the index files are written by EncryptedSequentialWriter
// as well: 4 KiB chunks of ciphertext, padding, an i32 length and a CRC32, the footer placed at
// the end of a chunk. Without the key none of it can be read: the keys go unchecked, which is a
// warning, never damage.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::cassandra::bti {

struct SstableEncryption {
  std::string compressor_class;    // as CompressionInfo.db names it
  std::string cipher;              // its cipher_algorithm option; "" when not given
  bool indexes_encrypted = false;  // Partitions.db and Rows.db too (BTI `ab`, `b*` and later)
};

// The encryption CompressionInfo.db at `info_path` names; nullopt when it names a compressor
// that does not encrypt, or cannot be read as far as its options.
std::optional<SstableEncryption> ReadSstableEncryption(const std::string& info_path,
                                                       std::string_view version,
                                                       std::string_view sstable_format);

// The same over CompressionInfo.db's bytes, named `source` (fuzzing, tests).
std::optional<SstableEncryption> SstableEncryptionOf(ByteSpan info, std::string_view source,
                                                     std::string_view version,
                                                     std::string_view sstable_format);

// The `unsupported` warning: what is encrypted, so which keys go unchecked, and what would let
// them be checked.
Finding EncryptionFinding(const SstableEncryption& e, const std::string& info_path);

}  // namespace bloomcodec::cassandra::bti
