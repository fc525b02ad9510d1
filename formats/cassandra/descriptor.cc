#include "bloomcodec/cassandra/descriptor.h"

#include <charconv>
#include <vector>

namespace bloomcodec::cassandra {
namespace {

// Descriptor.versionValidate: a version is one or more lowercase ASCII letters.
bool IsVersion(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

}  // namespace

FilterKind FilterKindForVersion(std::string_view version) {
  // Versions compare as strings, as Descriptor does (e.g. "hc" < "ia").
  if (version < "c") return FilterKind::kRebuiltFromIndex;  // hasStringsInBloomFilter
  if (version < "f") return FilterKind::kLegacy;            // usesOldBloomFilter
  if (version < "ia") return FilterKind::kCurrent;
  return FilterKind::kNotThisFormat;
}

std::string_view FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kRebuiltFromIndex: return "rebuilt from Index.db (version < c)";
    case FilterKind::kLegacy: return "cassandra-legacy";
    case FilterKind::kCurrent: return "cassandra-1.0";
    case FilterKind::kNotThisFormat: return "not a Cassandra 0.7-1.1 filter (version ia or later)";
  }
  return "?";
}

Result<Descriptor> ParseDescriptor(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // The Java tokenizer (StringTokenizer on '-') skips empty tokens.
  std::vector<std::string_view> tokens;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dash = name.find('-', start);
    if (dash == std::string_view::npos) dash = name.size();
    if (dash > start) tokens.push_back(name.substr(start, dash - start));
    start = dash + 1;
  }
  auto bad = [&](std::string why) {
    return Status::InvalidArgument(std::string(name) + ": not an SSTable file name (" + why + ")");
  };
  // Read from the right: component, generation, [version], [tmp], then cf (and 1.1's keyspace).
  if (tokens.size() < 3) return bad("expected <cf>-[<version>-]<generation>-<Component>");
  Descriptor d;
  std::size_t i = tokens.size() - 1;
  d.component = std::string(tokens[i--]);
  const std::string_view gen = tokens[i--];
  std::int64_t generation = 0;
  auto [ptr, ec] = std::from_chars(gen.data(), gen.data() + gen.size(), generation);
  // Descriptor parses the generation with Integer.parseInt.
  if (ec != std::errc() || ptr != gen.data() + gen.size() || generation < INT32_MIN ||
      generation > INT32_MAX) {
    return bad("generation '" + std::string(gen) + "' is not an int");
  }
  d.generation = generation;
  d.version = std::string(kLegacyVersion);
  // "tmp" is the temporary marker, never a version (versions are one or two letters).
  if (i >= 1 && IsVersion(tokens[i]) && tokens[i] != "tmp") d.version = std::string(tokens[i--]);
  if (i >= 1 && tokens[i] == "tmp") {
    d.temporary = true;
    --i;
  }
  if (i == 0) {
    d.column_family = std::string(tokens[0]);
  } else if (i == 1) {
    d.keyspace = std::string(tokens[0]);
    d.column_family = std::string(tokens[1]);
  } else {
    return bad("too many '-' separated parts");
  }
  return d;
}

}  // namespace bloomcodec::cassandra
