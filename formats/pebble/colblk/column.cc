#include "pebble/colblk/column.h"

namespace bloomcodec::pebble::colblk {

std::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kBool: return "bool";
    case DataType::kUint: return "uint";
    case DataType::kBytes: return "bytes";
    case DataType::kPrefixBytes: return "prefixbytes";
    case DataType::kInvalid: break;
  }
  return "invalid";
}

std::string HexByte(std::uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string{'0', 'x', kDigits[b >> 4], kDigits[b & 15]};
}

Status BlockPlace::ErrorAt(std::uint64_t position, std::string expected, std::string found,
                           std::string_view context) const {
  std::string where;
  if (decompressed) {
    where = "byte " + std::to_string(position) + " of the uncompressed " + std::string(what);
    if (!context.empty()) where += ", " + std::string(context);
    return Status::Corrupt(std::string(source), file_offset,
                           std::move(expected) + " (" + where + ")", std::move(found));
  }
  where =
      context.empty() ? std::string(what) : std::string(context) + " of the " + std::string(what);
  return Status::Corrupt(std::string(source), file_offset + position,
                         std::move(expected) + " (" + where + ")", std::move(found));
}

Status ColumnBytes::Error(std::uint64_t position, std::string expected, std::string found) const {
  std::string context;
  if (index >= 0) {
    context = "column " + std::to_string(index);
    if (!name.empty()) context += " (" + std::string(name) + ")";
  } else {
    context = std::string(name);
  }
  return place.ErrorAt(position, std::move(expected), std::move(found), context);
}

Status ColumnBytes::CheckEnd(std::uint64_t decoded_end) const {
  if (decoded_end == end) return Status();
  // Decoders never read past `end`, so the data stopped short: bytes nothing accounts for.
  return Error(decoded_end,
               "the column's data to end at block byte " + std::to_string(end) +
                   (index >= 0 ? " (where the next column or the padding byte starts)" : ""),
               "an end at block byte " + std::to_string(decoded_end));
}

ColumnBytes StandaloneColumn(ByteSpan block, std::uint32_t start, std::uint32_t end,
                             std::string_view name) {
  ColumnBytes c;
  c.block = block;
  c.start = start;
  c.end = end;
  c.name = name;
  return c;
}

}  // namespace bloomcodec::pebble::colblk
