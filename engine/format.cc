#include "bloomcodec/format.h"

#include <string>
#include <utility>

namespace bloomcodec {
namespace {

// The keys, kept until the end hands them to Build (CountingBuilder checks their count).
struct CollectingWriter {
  const FormatCodec& format;
  FilterParams params;
  KeyList keys;
  void Add(std::span<const ByteSpan> chunk) {
    for (const ByteSpan& k : chunk) keys.Add(k);
  }
  Result<ByteVector> Take() && { return format.Build(keys, params); }
};

// Probe per batch, the batch copied into a KeyList the probe reuses.
class ProbeEachBatch final : public FileProbe {
 public:
  ProbeEachBatch(const FormatCodec& format, ByteSpan file, std::string_view source,
                 ProbeOptions options)
      : format_(format), file_(file), source_(source), options_(std::move(options)) {}
  Status Probe(std::span<const ByteSpan> keys, std::span<std::uint8_t> answers) const override {
    thread_local KeyList copy;
    copy.Assign(keys);
    return format_.Probe(file_, source_, copy, options_, answers);
  }

 private:
  const FormatCodec& format_;
  ByteSpan file_;
  std::string source_;
  ProbeOptions options_;
};

class FilterProbe final : public FileProbe {
 public:
  explicit FilterProbe(std::unique_ptr<const Filter> filter) : filter_(std::move(filter)) {}
  Status Probe(std::span<const ByteSpan> keys, std::span<std::uint8_t> answers) const override {
    filter_->MayContainBatch(keys, answers);
    return Status();
  }

 private:
  std::unique_ptr<const Filter> filter_;
};

}  // namespace

std::unique_ptr<FileProbe> ProbeThrough(std::unique_ptr<const Filter> filter) {
  return std::make_unique<FilterProbe>(std::move(filter));
}

Status CountMismatch(std::uint64_t promised, std::uint64_t added) {
  return Status::InvalidArgument("a streamed build was promised " + std::to_string(promised) +
                                 " keys and given " + std::to_string(added));
}

bool FormatCodec::Claims(std::string_view, ByteSpan) const { return false; }

Result<ByteVector> FormatCodec::Build(const KeyList&, const FilterParams&) const {
  return Status::Unsupported("build is not available for format " + std::string(name()));
}

Result<std::unique_ptr<FilterBuilder>> FormatCodec::StartBuild(std::uint64_t key_count,
                                                               const FilterParams& params) const {
  return StartCounting(CollectingWriter{*this, params, KeyList()}, key_count);
}

Result<std::unique_ptr<FileProbe>> FormatCodec::OpenProbe(ByteSpan file, std::string_view source,
                                                          const ProbeOptions& options) const {
  // What Probe refuses whatever the keys (a damaged file) is refused here, as for zero keys.
  BLOOMCODEC_RETURN_IF_ERROR(Probe(file, source, KeyList(), options, {}));
  return std::unique_ptr<FileProbe>(std::make_unique<ProbeEachBatch>(*this, file, source, options));
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
