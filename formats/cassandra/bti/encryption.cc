#include "cassandra/bti/encryption.h"

#include "bloomcodec/input_file.h"
#include "codec/byte_reader.h"

namespace bloomcodec::cassandra::bti {
namespace {

bool EncryptingClass(std::string_view class_name) {
  const std::size_t dot = class_name.rfind('.');
  if (dot != std::string_view::npos) class_name.remove_prefix(dot + 1);
  return class_name == "Encryptor" || class_name.starts_with("Encrypting");
}

}  // namespace

std::optional<SstableEncryption> ReadSstableEncryption(const std::string& info_path,
                                                       std::string_view version,
                                                       std::string_view sstable_format) {
  Result<InputFile> in = InputFile::Open(info_path);
  if (!in.ok()) return std::nullopt;
  return SstableEncryptionOf(in->bytes(), info_path, version, sstable_format);
}

std::optional<SstableEncryption> SstableEncryptionOf(ByteSpan info, std::string_view source,
                                                     std::string_view version,
                                                     std::string_view sstable_format) {
  ByteReader r(info, source);
  Result<std::uint16_t> name_length = r.ReadBigU16("compressor class name length");
  if (!name_length.ok()) return std::nullopt;
  Result<ByteSpan> name = r.ReadBytes(*name_length, "compressor class name");
  if (!name.ok()) return std::nullopt;
  SstableEncryption e;
  e.compressor_class.assign(name->begin(), name->end());
  if (!EncryptingClass(e.compressor_class)) return std::nullopt;
  e.indexes_encrypted = sstable_format == "bti" && (version == "ab" || version >= "b");
  // The options (name, value pairs) as far as they can be read: the cipher for the message.
  Result<std::int32_t> options = r.ReadBigI32("option count");
  for (std::int32_t i = 0; options.ok() && i < *options; ++i) {
    std::string pair[2];
    for (std::string& s : pair) {
      Result<std::uint16_t> n = r.ReadBigU16("option string length");
      if (!n.ok()) return e;
      Result<ByteSpan> bytes = r.ReadBytes(*n, "option string");
      if (!bytes.ok()) return e;
      s.assign(bytes->begin(), bytes->end());
    }
    if (pair[0] == "cipher_algorithm") e.cipher = pair[1];
  }
  return e;
}

Finding EncryptionFinding(const SstableEncryption& e, const std::string& info_path) {
  Finding f;
  f.severity = Severity::kWarning;
  f.kind = finding_kind::kUnsupported;
  f.message = info_path + ": the sstable is encrypted (DSE transparent data encryption, " +
              e.compressor_class + (e.cipher.empty() ? std::string() : ", cipher " + e.cipher) +
              "): " + (e.indexes_encrypted ? "Partitions.db, Rows.db and Data.db" : "Data.db") +
              " cannot be read without the table's key, so " +
              (e.indexes_encrypted ? "no key is" : "the keys in Data.db are not") +
              " checked. To check them: verify a copy rewritten without encryption (ALTER "
              "TABLE ... WITH compression = {'class': 'LZ4Compressor'}, then nodetool "
              "upgradesstables -a), or give the keys with --keys";
  return f;
}

}  // namespace bloomcodec::cassandra::bti
