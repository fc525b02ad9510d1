// FormatCodec: one on-disk format as the command line sees it, and the registry of all formats.
//
//   const bloomcodec::FormatCodec* f = bloomcodec::FindFormat("cassandra-1.0");
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::ByteVector file, f->Build(keys, params));
//
// Each format folder implements these for its formats; `bloomcodec` (tools/) only parses
// arguments, reads inputs, calls one of these and prints. The format names are those of the
// command-line contract (docs/cli.md); they are part of the public interface.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bloomcodec/bytes.h"
#include "bloomcodec/family_options.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

// A JSON document (inspect, dump, verify). Ordered: fields print in the order they were set.
using Document = nlohmann::ordered_json;

// The sizing parameters of `build` and `size`; each format reads the ones it takes and refuses
// the others with an InvalidArgument status.
struct FilterParams {
  std::optional<double> fp_chance;                  // --fp-chance
  std::optional<std::int64_t> buckets_per_element;  // --buckets-per-element
  std::optional<double> bits_per_key;               // --bits-per-key
  std::optional<std::int64_t> expected_keys;        // --expected-keys
};

// The filter the original would allocate (the `size` subcommand).
struct SizeInfo {
  std::int64_t hash_count = 0;
  std::optional<std::int64_t> buckets_per_element;  // Cassandra
  std::optional<double> bits_per_key;               // LevelDB, RocksDB
  std::int64_t bits = 0;                            // the bucket modulus the filter uses
  std::optional<std::int64_t> words;                // Cassandra: 64-bit words in the header
  std::int64_t file_bytes = 0;
  std::vector<std::string> warnings;  // what the original logs (e.g. Cassandra's WARN)
  // Cassandra 1.2+ at fp chance 1.0: no bits, every key present (sizes above are 0).
  bool always_present = false;
  // Whether the original writes a filter file for these parameters (unset: always).
  std::optional<bool> writes_filter_file;
};

// How probe keys relate to the keys stored in a table (LevelDB's --key-kind; RocksDB's SSTs
// always hold internal keys).
enum class KeyKind {
  kAuto,   // decide from the table where that is certain
  kUser,   // a database's table: stored keys are internal keys, probes are user keys
  kPlain,  // a TableBuilder's table: probes are compared and hashed as stored
};

struct ProbeOptions {
  // The family's own options (bloomcodec/<family>/options.h), e.g. a LevelDB table's key kind
  // and writer; only the family of the file probed reads them.
  FamilyOptions family;
};

// One file's answers for many batches of keys, the file read once (convert's streamed checks).
class FileProbe {
 public:
  virtual ~FileProbe() = default;
  // FormatCodec::Probe's answers for these keys (answers.size() == keys.size()).
  virtual Status Probe(std::span<const ByteSpan> keys, std::span<std::uint8_t> answers) const = 0;
};

// A FileProbe answering through a filter already parsed (which may view the file's bytes).
std::unique_ptr<FileProbe> ProbeThrough(std::unique_ptr<const Filter> filter);

// Build, a chunk of keys at a time: convert of key sources larger than memory.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto builder, format->StartBuild(n, params));
//   for (each chunk of the n keys, in order) BLOOMCODEC_RETURN_IF_ERROR(builder->Add(chunk));
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector file, builder->Finish());   // == Build(all n keys)
class FilterBuilder {
 public:
  virtual ~FilterBuilder() = default;
  virtual Status Add(std::span<const ByteSpan> keys) = 0;
  // Build's bytes for the keys added; InvalidArgument unless they were StartBuild's key_count.
  virtual Result<ByteVector> Finish() = 0;
};

// What Finish returns when the keys added are not the count StartBuild was given.
Status CountMismatch(std::uint64_t promised, std::uint64_t added);

// The FilterBuilder of a filter sized from the count alone: `Writer` (a filter allocated for
// key_count keys) has `void Add(std::span<const ByteSpan>)`, which sets a chunk's bits, and
// `Take() &&`, the file (a ByteVector or a Result of one). Holds what the writer holds.
template <typename Writer>
class CountingBuilder final : public FilterBuilder {
 public:
  CountingBuilder(Writer writer, std::uint64_t key_count)
      : writer_(std::move(writer)), key_count_(key_count) {}
  Status Add(std::span<const ByteSpan> keys) override {
    writer_.Add(keys);
    added_ += keys.size();
    return Status();
  }
  Result<ByteVector> Finish() override {
    if (added_ != key_count_) return CountMismatch(key_count_, added_);
    return std::move(writer_).Take();
  }

 private:
  Writer writer_;
  std::uint64_t key_count_;
  std::uint64_t added_ = 0;
};
template <typename Writer>
Result<std::unique_ptr<FilterBuilder>> StartCounting(Writer writer, std::uint64_t key_count) {
  return std::unique_ptr<FilterBuilder>(
      std::make_unique<CountingBuilder<Writer>>(std::move(writer), key_count));
}

class FormatCodec {
 public:
  virtual ~FormatCodec() = default;

  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  // The PARAMS of `build` and `size` for usage messages, e.g. "--bits-per-key N".
  virtual std::string_view params_help() const = 0;

  // True when `path` or `contents` says this is the format (file-name version letters, magic).
  virtual bool Claims(std::string_view path, ByteSpan contents) const;

  // A new file's bytes, byte-identical to what the original writes for these keys and params.
  virtual Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const;
  // How Probe must read a file Build wrote (a LevelDB table Build writes stores its keys plain).
  virtual ProbeOptions BuiltProbeOptions() const { return {}; }
  // Build, streamed: `key_count` keys follow through Add, and Finish gives Build's bytes for
  // them. A filter that is sized from the count alone holds only its bits; a format that needs
  // every key at once (a sorted table, Ribbon's solution) keeps them, as the default does.
  virtual Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                            const FilterParams& params) const;
  // What the original would allocate; Refused where the original refuses.
  virtual Result<SizeInfo> Size(const FilterParams& params) const;
  // The `hash` subcommand's line for one key, tab-separated, without the newline.
  virtual Status Hash(ByteSpan key, std::string& line) const;
  // The original's answer for every key (1 may contain, 0 definitely not) into `answers`
  // (answers.size() == keys.size()). `source` names the file in error messages.
  virtual Status Probe(ByteSpan file, std::string_view source, const KeyList& keys,
                       const ProbeOptions& options, std::span<std::uint8_t> answers) const;
  // Probe for many batches: formats with one filter parse it once here; the default calls Probe
  // per batch. `file` must outlive the result.
  virtual Result<std::unique_ptr<FileProbe>> OpenProbe(ByteSpan file, std::string_view source,
                                                       const ProbeOptions& options) const;

  // `inspect`: every header field, sizes, bits set, fill ratio, estimated keys (naming the
  // estimator), the false-positive rate these imply, and what the parameters promised.
  virtual Result<Document> Inspect(ByteSpan file, std::string_view source) const;
  // `dump`: everything in the file (header fields, the bits as base64), such that
  // Undump(Dump(file)) gives `file` back byte for byte.
  virtual Result<Document> Dump(ByteSpan file, std::string_view source) const;
  virtual Result<ByteVector> Undump(const Document& dump, std::string_view source) const;
};

// Every format, in the order of the command-line contract.
std::span<const FormatCodec* const> AllFormats();
const FormatCodec* FindFormat(std::string_view name);
// The format that claims this input, or nullptr when none or several do.
const FormatCodec* DetectFormat(std::string_view path, ByteSpan contents);

}  // namespace bloomcodec
