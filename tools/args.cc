#include "args.h"

#include <algorithm>

#include "numbers.h"

namespace bloomcodec::tool {

namespace {

Status Usage(std::string message) { return Status::InvalidArgument(std::move(message)); }

Status BadNumber(std::string_view flag, std::string_view value, std::string_view expected) {
  return Usage(std::string(flag) + ": expected " + std::string(expected) + ", found '" +
               std::string(value) + "'");
}

}  // namespace

bool Args::Has(std::string_view flag) const {
  return std::any_of(flags_.begin(), flags_.end(), [&](const auto& f) { return f.first == flag; });
}

std::optional<std::string_view> Args::Value(std::string_view flag) const {
  for (const auto& [name, value] : flags_) {
    if (name == flag) return value;
  }
  return std::nullopt;
}

Result<std::string_view> Args::Required(std::string_view flag) const {
  std::optional<std::string_view> value = Value(flag);
  if (!value) return Usage(std::string(flag) + " is required");
  return *value;
}

Result<std::optional<double>> Args::JavaDouble(std::string_view flag) const {
  std::optional<std::string_view> text = Value(flag);
  if (!text) return std::optional<double>();
  double value;
  if (!ParseJavaDouble(*text, value)) {
    return BadNumber(flag, *text,
                     "a number as Java's Double.parseDouble reads it (e.g. 0.01, 1e-3)");
  }
  return std::optional<double>(value);
}

Result<std::optional<double>> Args::Decimal(std::string_view flag) const {
  std::optional<std::string_view> text = Value(flag);
  if (!text) return std::optional<double>();
  double value;
  if (!ParseDecimal(*text, value)) return BadNumber(flag, *text, "a decimal number (e.g. 10, 7.5)");
  return std::optional<double>(value);
}

Result<std::optional<std::int64_t>> Args::Int64(std::string_view flag) const {
  std::optional<std::string_view> text = Value(flag);
  if (!text) return std::optional<std::int64_t>();
  std::int64_t value;
  if (!ParseInt64(*text, value)) return BadNumber(flag, *text, "a signed 64-bit integer");
  return std::optional<std::int64_t>(value);
}

Result<std::optional<std::int32_t>> Args::Int32(std::string_view flag) const {
  std::optional<std::string_view> text = Value(flag);
  if (!text) return std::optional<std::int32_t>();
  std::int32_t value;
  if (!ParseInt32(*text, value)) return BadNumber(flag, *text, "a signed 32-bit integer");
  return std::optional<std::int32_t>(value);
}

Result<Args> ParseArgs(std::span<const std::string_view> argv, std::span<const FlagSpec> specs) {
  Args args;
  bool only_positionals = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    // "-" alone is a value (standard input/output), never a flag.
    if (only_positionals || arg.size() < 2 || arg[0] != '-') {
      args.positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    std::string_view name = arg;
    std::optional<std::string_view> inline_value;
    if (std::size_t eq = arg.find('='); eq != std::string_view::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
    if (spec == specs.end()) return Usage("unknown flag " + std::string(name));
    if (args.Has(name)) return Usage(std::string(name) + " given twice");
    if (!spec->takes_value) {
      if (inline_value) return Usage(std::string(name) + " takes no value");
      args.flags_.emplace_back(name, std::string_view());
      continue;
    }
    if (!inline_value) {
      if (i + 1 == argv.size()) return Usage(std::string(name) + " needs a value");
      inline_value = argv[++i];
    }
    args.flags_.emplace_back(name, *inline_value);
  }
  return args;
}

Result<FilterParams> ReadFilterParams(const Args& args) {
  FilterParams params;
  BLOOMCODEC_ASSIGN_OR_RETURN(params.fp_chance, args.JavaDouble("--fp-chance"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<std::int32_t> buckets,
                              args.Int32("--buckets-per-element"));
  if (buckets) params.buckets_per_element = *buckets;
  BLOOMCODEC_ASSIGN_OR_RETURN(params.bits_per_key, args.Decimal("--bits-per-key"));
  BLOOMCODEC_ASSIGN_OR_RETURN(params.expected_keys, args.Int64("--expected-keys"));
  return params;
}

Result<KeyFormat> ReadKeyFormat(const Args& args) {
  KeyFormat format = KeyFormat::kText;
  std::optional<std::string_view> name = args.Value("--key-format");
  if (name && !ParseKeyFormat(*name, format)) {
    return Usage("--key-format: expected text, hex or base64, found '" + std::string(*name) + "'");
  }
  return format;
}

}  // namespace bloomcodec::tool
