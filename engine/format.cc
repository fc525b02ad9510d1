#include "bloomcodec/format.h"

namespace bloomcodec {

bool FormatCodec::Claims(std::string_view, ByteSpan) const { return false; }

Result<ByteVector> FormatCodec::Build(const KeyList&, const FilterParams&) const {
  return Status::Unsupported("build is not available for format " + std::string(name()));
}

Result<SizeInfo> FormatCodec::Size(const FilterParams&) const {
  return Status::Unsupported("size is not available for format " + std::string(name()));
}

Status FormatCodec::Hash(ByteSpan, std::string&) const {
  return Status::Unsupported("hash is not available for format " + std::string(name()));
}

Status FormatCodec::Probe(ByteSpan, std::string_view, const KeyList&, const ProbeOptions&,
                          std::span<std::uint8_t>) const {
  return Status::Unsupported("probe is not available for format " + std::string(name()));
}

Result<Document> FormatCodec::Inspect(ByteSpan, std::string_view) const {
  return Status::Unsupported("inspect is not available for format " + std::string(name()));
}

Result<Document> FormatCodec::Dump(ByteSpan, std::string_view) const {
  return Status::Unsupported("dump is not available for format " + std::string(name()));
}

Result<ByteVector> FormatCodec::Undump(const Document&, std::string_view) const {
  return Status::Unsupported("a dump cannot be converted back to format " + std::string(name()));
}

const FormatCodec* FindFormat(std::string_view name) {
  for (const FormatCodec* f : AllFormats()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

const FormatCodec* DetectFormat(std::string_view path, ByteSpan contents) {
  const FormatCodec* found = nullptr;
  for (const FormatCodec* f : AllFormats()) {
    if (!f->Claims(path, contents)) continue;
    if (found) return nullptr;  // ambiguous: the user must say
    found = f;
  }
  return found;
}

}  // namespace bloomcodec
