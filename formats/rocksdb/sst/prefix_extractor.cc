#include "rocksdb/sst/prefix_extractor.h"

#include <charconv>

namespace bloomcodec::rocksdb {

namespace {

// TiKV's names and suffix length (prefix_extractor.h).
constexpr std::string_view kTikvFixedSuffix = "FixedSuffixSliceTransform";
constexpr std::string_view kTikvNoop = "NoopSliceTransform";
constexpr std::uint32_t kTikvSuffixBytes = 8;

std::optional<std::uint32_t> ParseLength(std::string_view digits) {
  std::uint32_t n = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, n);
  if (digits.empty() || ec != std::errc() || ptr != end || n == 0 || n > 0x7fffffffu) {
    return std::nullopt;
  }
  return n;
}

}  // namespace

std::optional<PrefixExtractor> PrefixExtractor::FromPropertyName(std::string_view name) {
  constexpr std::string_view kFixed = "rocksdb.FixedPrefix.";
  constexpr std::string_view kCapped = "rocksdb.CappedPrefix.";
  if (name == "rocksdb.Noop" || name == kTikvNoop) return PrefixExtractor{Kind::kNoop, 0};
  if (name == kTikvFixedSuffix) return PrefixExtractor{Kind::kFixedSuffix, kTikvSuffixBytes};
  for (auto [prefix, kind] : {std::pair{kFixed, Kind::kFixed}, std::pair{kCapped, Kind::kCapped}}) {
    if (!name.starts_with(prefix)) continue;
    std::optional<std::uint32_t> n = ParseLength(name.substr(prefix.size()));
    if (!n) return std::nullopt;
    return PrefixExtractor{kind, *n};
  }
  return std::nullopt;
}

Result<PrefixExtractor> PrefixExtractor::FromSpec(std::string_view spec) {
  if (spec == "noop") return PrefixExtractor{Kind::kNoop, 0};
  for (auto [prefix, kind] : {std::pair{std::string_view("fixed:"), Kind::kFixed},
                              std::pair{std::string_view("capped:"), Kind::kCapped}}) {
    if (!spec.starts_with(prefix)) continue;
    if (std::optional<std::uint32_t> n = ParseLength(spec.substr(prefix.size()))) {
      return PrefixExtractor{kind, *n};
    }
  }
  return Status::InvalidArgument(
      "--prefix-extractor: expected fixed:N, capped:N (N >= 1) or "
      "noop, found '" +
      std::string(spec) + "'");
}

std::string PrefixExtractor::Name() const {
  switch (kind) {
    case Kind::kFixed: return "rocksdb.FixedPrefix." + std::to_string(length);
    case Kind::kCapped: return "rocksdb.CappedPrefix." + std::to_string(length);
    case Kind::kNoop: return "rocksdb.Noop";
    case Kind::kFixedSuffix: return std::string(kTikvFixedSuffix);
  }
  return "";
}

}  // namespace bloomcodec::rocksdb
