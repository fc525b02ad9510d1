#include "cassandra/descriptor.h"

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

// 4.1's time-based SSTable id (UUIDBasedSSTableId.toString): 4, 4 and 18 base-36 digits
// separated by '_', 28 characters.
bool IsTimeBasedId(std::string_view s) {
  if (s.size() != 28 || s[4] != '_' || s[9] != '_') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 4 || i == 9) continue;
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) return false;
  }
  return true;
}

bool IsSstableFormat(std::string_view s) { return s == "big" || s == "bti"; }

}  // namespace

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
  Descriptor d;
  // New style (2.2+): [tmp-|tmplink-]<version>-<id>-<big|bti>-<Component>. The old style always
  // has the numeric generation where the new one has the format name, so the two cannot be
  // confused.
  if (tokens.size() >= 4 && IsSstableFormat(tokens[tokens.size() - 2])) {
    const std::size_t n = tokens.size();
    d.component = std::string(tokens[n - 1]);
    d.sstable_format = std::string(tokens[n - 2]);
    const std::string_view id = tokens[n - 3];
    d.version = std::string(tokens[n - 4]);
    if (!IsVersion(d.version)) return bad("version '" + d.version + "' is not letters");
    if (n == 5 && (tokens[0] == "tmp" || tokens[0] == "tmplink")) {
      d.temporary = true;
    } else if (n != 4) {
      return bad("expected [tmp-]<version>-<id>-<big|bti>-<Component>");
    }
    d.generation_id = std::string(id);
    std::int64_t generation = 0;
    auto [ptr, ec] = std::from_chars(id.data(), id.data() + id.size(), generation);
    if (ec == std::errc() && ptr == id.data() + id.size() && generation >= 0) {
      d.generation = generation;
    } else if (!IsTimeBasedId(id)) {
      return bad("id '" + std::string(id) + "' is neither an integer nor a 4.1 time-based id");
    }
    return d;
  }
  // Read from the right: component, generation, [version], [tmp], then cf (and 1.1's keyspace).
  if (tokens.size() < 3) return bad("expected <cf>-[<version>-]<generation>-<Component>");
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
  d.generation_id = std::string(gen);
  d.version = std::string(kVersionWhenAbsent);
  // "tmp" (and 2.1's "tmplink") is the temporary marker, never a version (versions are one or
  // two letters).
  const auto is_temporary_marker = [](std::string_view t) { return t == "tmp" || t == "tmplink"; };
  d.version_in_name = false;
  if (i >= 1 && IsVersion(tokens[i]) && !is_temporary_marker(tokens[i])) {
    d.version = std::string(tokens[i--]);
    d.version_in_name = true;
  }
  if (i >= 1 && is_temporary_marker(tokens[i])) {
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

namespace {

// Component.Type of Cassandra 0.6 - 5.0, with ScyllaDB's and DataStax's additions (Scylla.db,
// the temporary TOC and statistics ScyllaDB writes before it renames them; Partitions.db and
// Rows.db of trie-indexed sstables).
constexpr std::string_view kComponents[] = {"Data.db",
                                            "Index.db",
                                            "Filter.db",
                                            "CompressionInfo.db",
                                            "Statistics.db",
                                            "Summary.db",
                                            "TOC.txt",
                                            "Digest.sha1",
                                            "Digest.crc32",
                                            "Digest.adler32",
                                            "CRC.db",
                                            "Compacted",
                                            "Partitions.db",
                                            "Rows.db",
                                            "Scylla.db",
                                            "TemporaryTOC.txt",
                                            "TemporaryStatistics.db"};

}  // namespace

bool IsKnownComponent(std::string_view component) {
  if (component.ends_with(".gz")) component.remove_suffix(3);
  for (std::string_view c : kComponents) {
    if (c == component) return true;
  }
  // Secondary indexes: SASI's and the old ones' SI_<name>.db, the storage-attached indexes'
  // SAI+<version>+...db (5.0) and SAI_...db (DataStax).
  return component.ends_with(".db") &&
         (component.starts_with("SI_") || component.starts_with("SAI"));
}

NameKind ClassifyName(const Descriptor& d) {
  const bool version = IsWrittenVersion(d.version, d.sstable_format);
  const bool component = IsKnownComponent(d.component);
  if (version && component) return NameKind::kComponent;
  // A name without a version (0.6's) says too little: only a known component makes it one.
  if (component || (version && d.version_in_name)) return NameKind::kLookalike;
  return NameKind::kOther;
}

std::string LookalikeReason(const Descriptor& d) {
  if (!IsWrittenVersion(d.version, d.sstable_format)) {
    return "version '" + d.version + "' is none that Cassandra, ScyllaDB or DataStax writes" +
           (d.sstable_format.empty() ? "" : " in " + d.sstable_format + " names");
  }
  return "'" + d.component + "' is no component Cassandra, ScyllaDB or DataStax writes";
}

}  // namespace bloomcodec::cassandra
