// bloomcodec size: what the original would allocate for N keys.
#include <charconv>
#include <string>

#include "args.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"

namespace bloomcodec::tool {

namespace {

// Shortest plain decimal that reads back as the same double: 10, 7.5 (never 1e+01).
std::string DoubleText(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string HumanText(const FormatCodec& format, std::int64_t expected_keys, const SizeInfo& s) {
  std::string text;
  auto row = [&](std::string_view label, const std::string& value) {
    std::string line(label);
    line.resize(22, ' ');
    text += line + value + "\n";
  };
  row("format", std::string(format.name()));
  row("expected keys", std::to_string(expected_keys));
  if (s.always_present) row("always present", "yes (fp chance 1.0: no bits, every key present)");
  if (s.writes_filter_file) row("writes Filter.db", *s.writes_filter_file ? "yes" : "no");
  row("hash count", std::to_string(s.hash_count));
  if (s.buckets_per_element) row("buckets per element", std::to_string(*s.buckets_per_element));
  if (s.bits_per_key) row("bits per key", DoubleText(*s.bits_per_key));
  row("bits", std::to_string(s.bits));
  if (s.words) row("words", std::to_string(*s.words));
  row("file bytes", std::to_string(s.file_bytes));
  for (const std::string& w : s.warnings) text += "warning: " + w + "\n";
  return text;
}
}  // namespace

Status RunSize(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kSize)));
  if (!args.positionals().empty()) {
    return Status::InvalidArgument("unexpected argument '" + std::string(args.positionals()[0]) +
                                   "'");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, RequiredFormat(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterParams params, ReadFilterParams(args));
  if (!params.expected_keys) return Status::InvalidArgument("--expected-keys N is required");
  // Which sizing parameter is required (or, for a row filter, refused) is the format's call.
  BLOOMCODEC_ASSIGN_OR_RETURN(SizeInfo size, format->Size(params));
  if (!args.Has("--json")) return WriteStdout(HumanText(*format, *params.expected_keys, size));

  // Exactly the keys of the contract, in a fixed order; optional ones only where they apply.
  nlohmann::ordered_json doc;
  doc["hash_count"] = size.hash_count;
  if (size.buckets_per_element) doc["buckets_per_element"] = *size.buckets_per_element;
  if (size.bits_per_key) doc["bits_per_key"] = *size.bits_per_key;
  doc["bits"] = size.bits;
  if (size.words) doc["words"] = *size.words;
  doc["file_bytes"] = size.file_bytes;
  if (size.always_present) doc["always_present"] = true;
  if (size.writes_filter_file) doc["writes_filter_file"] = *size.writes_filter_file;
  if (!size.warnings.empty()) doc["warnings"] = size.warnings;
  return WriteJson(doc);
}

}  // namespace bloomcodec::tool
