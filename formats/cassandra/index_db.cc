#include "bloomcodec/cassandra/index_db.h"

#include <string>

#include "bloomcodec/byte_reader.h"
#include "bloomcodec/byte_writer.h"

namespace bloomcodec::cassandra {

IndexKeyForm IndexKeyFormForVersion(std::string_view version) {
  // Descriptor.hasEncodedKeys: versions compare as strings, "a" .. "d" are before "e".
  return version < std::string_view("e") ? IndexKeyForm::kRandomPartitionerEncoded
                                         : IndexKeyForm::kRaw;
}

namespace {

// The key the filter saw, from RandomPartitioner's disk form "<token>:<key>". The token is a
// BigInteger printed in decimal (an MD5 made non-negative), so only digits precede the ':'.
Result<ByteSpan> DecodeRandomPartitionerKey(ByteSpan stored, const ByteReader& reader,
                                            std::uint64_t key_offset) {
  std::size_t i = 0;
  while (i < stored.size() && stored[i] >= '0' && stored[i] <= '9') ++i;
  if (i == 0 || i == stored.size() || stored[i] != ':') {
    return reader.ErrorAt(key_offset + i,
                          "RandomPartitioner's encoded key '<decimal token>:<key>' (versions "
                          "before e store keys encoded)",
                          i == stored.size() ? "the end of the key" : "byte " + ToHex(stored.subspan(i, 1)));
  }
  return stored.subspan(i + 1);
}

}  // namespace

Result<IndexDb> ReadIndexDb(ByteSpan file, std::string_view source, IndexKeyForm form) {
  IndexDb index;
  BLOOMCODEC_RETURN_IF_ERROR(ReadIndexDbInto(file, source, form, index));
  return index;
}

Status ReadIndexDbInto(ByteSpan file, std::string_view source, IndexKeyForm form, IndexDb& index) {
  ByteReader reader(file, source);
  std::uint64_t entry = 0;
  // A lower bound of the entry count (each takes at least 10 bytes) is checked against the
  // input's length by construction; no header field sizes an allocation.
  index.positions.reserve(index.positions.size() + file.size() / 10);
  while (!reader.at_end()) {
    const std::string label = "entry " + std::to_string(entry);
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint16_t length, reader.ReadBigU16(label + ": key length"));
    const std::uint64_t key_offset = reader.offset();
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan stored, reader.ReadBytes(length, label + ": key bytes"));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t position,
                                reader.ReadBigI64(label + ": Data.db position (i64 BE)"));
    if (position < 0) {
      return reader.ErrorAt(reader.offset() - 8, label + ": a non-negative Data.db position",
                            std::to_string(position));
    }
    if (!index.positions.empty() && position <= index.positions.back()) {
      return reader.ErrorAt(reader.offset() - 8,
                            label + ": a Data.db position above the previous entry's " +
                                std::to_string(index.positions.back()),
                            std::to_string(position));
    }
    ByteSpan key = stored;
    if (form == IndexKeyForm::kRandomPartitionerEncoded) {
      BLOOMCODEC_ASSIGN_OR_RETURN(key, DecodeRandomPartitionerKey(stored, reader, key_offset));
    }
    index.keys.Add(key);
    index.positions.push_back(position);
    ++entry;
  }
  return Status();
}

Result<ByteVector> WriteIndexDb(const KeyList& keys, std::span<const std::int64_t> positions) {
  if (positions.size() != keys.size()) {
    return Status::InvalidArgument("WriteIndexDb: one position per key");
  }
  ByteVector out;
  ByteWriter writer(out);
  writer.Reserve(keys.total_bytes() + keys.size() * 10);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > 0xffff) {
      return Status::InvalidArgument("key " + std::to_string(i) + " has " +
                                     std::to_string(keys[i].size()) +
                                     " bytes; Index.db stores at most 65535");
    }
    writer.PutBigU16(static_cast<std::uint16_t>(keys[i].size()));
    writer.PutBytes(keys[i]);
    writer.PutBigI64(positions[i]);
  }
  return out;
}

Result<ByteVector> WriteIndexDb(const KeyList& keys, std::int64_t row_bytes) {
  std::vector<std::int64_t> positions(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) positions[i] = static_cast<std::int64_t>(i) * row_bytes;
  return WriteIndexDb(keys, positions);
}

}  // namespace bloomcodec::cassandra
