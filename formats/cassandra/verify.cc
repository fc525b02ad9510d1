#include "cassandra/verify.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <tuple>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/era_table.h"
#include "cassandra/filter_keys.h"
#include "cassandra/index_db.h"
#include "cassandra/inspect.h"
#include "cassandra/murmur3/inspect.h"
#include "cassandra/other_eras.h"
#include "cassandra/rebuild_tap.h"
#include "cassandra/statistics_db.h"
#include "cassandra/summary_db.h"

namespace bloomcodec::cassandra {

namespace {

namespace fs = std::filesystem;

// BloomCalculations never chooses more than this many hash functions; a larger K is legal to
// read but no Cassandra writer produced it.
constexpr std::int32_t kMaxPlausibleHashCount = 20;

std::string FormatNameFor(Era era) { return std::string(Facts(era).name); }

// Whose keys are Java Strings' bytes (the 0.6 era).
bool HashesJavaStrings(Era era) { return Facts(era).hash == KeyHash::kMurmur2x32JavaString; }

// The most keys the filter's own size and K allow (the fill judgement without a key count).
std::optional<double> AllowedKeys(const V10Filter& f) {
  return KeysAllowedBySizing(f.signed_hash_count(), f.modulus(), 0);
}
std::optional<double> AllowedKeys(const LegacyFilter& f) {
  return KeysAllowedBySizing(f.signed_hash_count(), f.modulus(), 0);
}
std::optional<double> AllowedKeys(const Murmur3Filter& f) {
  return KeysAllowedByMurmur3Sizing(f.signed_hash_count(), f.modulus());
}

// The row index entry of an Index.db read for a filter of `era` (the version decides before
// 1.2; from 1.2 on the era does, as its first version has them, so that --index works for a
// filter whose name has no version).
IndexEntryForm EntryFormFor(Era era, std::string_view version) {
  if (Facts(era).hash == KeyHash::kMurmur3) {
    return IndexEntryFormForVersion(Facts(era).first_version);
  }
  return IndexEntryFormForVersion(version);
}

// Where the key count the fill is judged against came from, for the message.
std::string_view SizedFromText(std::string_view from) {
  if (from == "index") return "in Index.db";
  if (from == "keys") return "given";
  return "allowed by its size and K";
}

// The fill against `sized_keys` (the key source's count) or, without one, against the most keys
// the filter's size and K allow: a saturated or overfilled filter is found with no keys at all.
template <typename FilterType>
void CheckFill(const FilterType& filter, std::optional<double> sized_keys, std::string sized_from,
               std::uint64_t bits_offset, FileReport& report) {
  FillStatistics s =
      ComputeFillStatistics(filter.bit_count(), filter.bits_set(), filter.hash_count());
  if (!sized_keys) {
    sized_keys = AllowedKeys(filter);
    sized_from = sized_keys ? "parameters" : "";
  }
  FillReport fill;
  fill.bits = s.bits;
  fill.bits_set = s.bits_set;
  fill.hash_count = s.hash_count;
  fill.fill_ratio = s.fill_ratio;
  fill.estimated_keys = s.estimated_keys;
  fill.fp_rate = s.false_positive_rate;
  fill.sized_keys = sized_keys;
  fill.sized_keys_from = sized_from;
  report.fill = fill;
  const FillVerdict verdict = JudgeFill(s, sized_keys, SizedFromText(sized_from));
  if (verdict.kind == finding_kind::kOverfilled) {
    report.Add(Severity::kError, finding_kind::kOverfilled,
               verdict.reason +
                   ": the filter holds keys it was not sized for, or bits were damaged",
               bits_offset);
  } else if (verdict) {
    report.Add(verdict.severity, verdict.kind, verdict.reason, bits_offset);
  }
}

// The key count the fill is judged against, once `keys` were read: theirs when they are all the
// filter's keys, else unset (the filter's own parameters judge).
std::optional<double> SizedKeys(const FilterKeys* keys, const std::string& sized_from) {
  if (keys == nullptr || sized_from.empty() || !keys->complete()) return std::nullopt;
  return static_cast<double>(keys->count());
}

// `asked`: what the keys are asked of, when not `filter` itself (a repair's TappedFilter).
template <typename FilterType>
void CheckParsed(const FilterType& filter, ByteSpan file, FilterKeys* keys,
                 const std::string& sized_from, std::uint64_t bits_offset, FileReport& report,
                 const Filter* asked = nullptr) {
  if (filter.trailing_bytes() > 0) {
    const std::uint64_t end = file.size() - filter.trailing_bytes();
    report.Add(Severity::kWarning, finding_kind::kTrailingBytes,
               std::to_string(filter.trailing_bytes()) +
                   " bytes after the filter, which Cassandra ignores",
               end);
  }
  const std::int32_t k = filter.signed_hash_count();
  if (k == 0) {
    report.Add(Severity::kWarning, finding_kind::kHashCount,
               "hash count 0: every key is reported present (Cassandra's empty filter)", 0);
  } else if (k > kMaxPlausibleHashCount) {
    report.Add(Severity::kWarning, finding_kind::kHashCount,
               "hash count " + std::to_string(k) + " is above " +
                   std::to_string(kMaxPlausibleHashCount) +
                   ", more than Cassandra's sizing ever chooses",
               0);
  }
  if (keys != nullptr) {
    keys->Check(asked != nullptr ? asked : &filter, report);
    report.FinishFalseNegatives("the filter");
  }
  CheckFill(filter, SizedKeys(keys, sized_from), sized_from, bits_offset, report);
}

// Reads `path`; a failure is an "unreadable" finding. Null when it failed.
std::unique_ptr<InputFile> OpenOrReport(const std::string& path, std::string_view what,
                                        FileReport& report) {
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable,
               std::string(what) + ": " + in.status().ToString());
    return nullptr;
  }
  return std::make_unique<InputFile>(std::move(in).value());
}

// The keys of an Index.db, read as they are checked (filter_keys.h); damage is an "index"
// finding and the keys before it are checked.
std::unique_ptr<FilterKeys> LoadIndex(const std::string& path, std::string_view version, Era era,
                                      FileReport& report, std::optional<IndexKeyForm> forced,
                                      CountIsLowerBound lower_bound, const StreamLimits& limits) {
  std::unique_ptr<InputFile> in = OpenOrReport(path, "Index.db", report);
  if (!in) return nullptr;
  // Keys are stored encoded only before version e; a 1.2+ kind (BTI's "da" sorts before "e")
  // always has raw keys.
  const bool before_e =
      Facts(era).hash != KeyHash::kMurmur3 && IndexKeyFormForVersion(version) != IndexKeyForm::kRaw;
  // --partitioner forces the reading before e; otherwise the data tells.
  const IndexKeyForm detected = !before_e ? IndexKeyForm::kRaw
                                : forced  ? *forced
                                          : IndexKeyFormFor(version, in->bytes());
  // The 0.6 filter was given the partitioner's whole disk form, as Index.db stores it.
  const bool java_strings = HashesJavaStrings(era);
  const IndexKeyForm key_form = java_strings ? IndexKeyForm::kRaw : detected;
  if (before_e) {
    // Before e the partitioner decides what Index.db holds; say which one the data shows.
    report.Add(Severity::kInfo, finding_kind::kPartitioner,
               std::string(forced ? (detected == IndexKeyForm::kRaw
                                         ? "Index.db keys read as an order-preserving partitioner "
                                           "wrote them (the key itself)"
                                         : "Index.db keys read as RandomPartitioner wrote them "
                                           "('<token>:<key>')")
                           : detected == IndexKeyForm::kRaw
                               ? "Index.db keys as an order-preserving partitioner wrote them (the "
                                 "key itself: no entry is RandomPartitioner's '<MD5 token>:<key>')"
                               : "Index.db keys as RandomPartitioner wrote them ('<token>:<key>', "
                                 "the token the key's MD5)") +
                   (java_strings ? "; the 0.6 filter holds each entry's whole string"
                    : detected == IndexKeyForm::kRaw ? ""
                                                     : "; the key is what follows the ':'") +
                   (forced ? " (as --partitioner says)" : ""));
    report.findings.back().fields.emplace_back(
        "partitioner", detected == IndexKeyForm::kRaw ? "order-preserving" : "random");
  }
  return std::make_unique<IndexDbKeys>(std::move(in), key_form, EntryFormFor(era, version),
                                       java_strings, report, lower_bound, limits);
}

// Where a folder of sstables sits: live, or a snapshot / backup copy, and the folder that owns
// the copy (the keyspace folder in the 1.0 layout).
struct SnapshotPlace {
  GroupRole role = GroupRole::kLive;
  fs::path owner;     // the folder the live sstables of this copy are in
  std::string label;  // appended to the group name: " (snapshot TAG)", " (backups)"
};

SnapshotPlace PlaceOf(const fs::path& dir);

// "<keyspace>/<table>": from the name (1.1 - 2.1), else from the folders (1.0: <ks>/; 2.2+ names
// carry neither: <ks>/<table>-<table id>/).
std::string GroupName(const Descriptor& d, const SnapshotPlace& place, const std::string& root) {
  if (!d.sstable_format.empty()) {
    std::string table = place.owner.filename().string();
    const std::size_t dash = table.rfind('-');
    if (dash != std::string::npos && table.size() - dash - 1 == 32) table.resize(dash);
    std::string keyspace = place.owner.parent_path().filename().string();
    if (table.empty() || table == ".") table = fs::path(root).filename().string();
    return keyspace.empty() || keyspace == "." ? table : keyspace + "/" + table;
  }
  std::string keyspace = d.keyspace;
  if (keyspace.empty()) {
    keyspace = place.owner.filename().string();
    if (keyspace.empty() || keyspace == ".") keyspace = fs::path(root).filename().string();
  }
  return keyspace + "/" + d.column_family;
}

SnapshotPlace PlaceOf(const fs::path& dir) {
  SnapshotPlace place;
  place.owner = dir;
  if (dir.filename() == "backups") {
    place.role = GroupRole::kBackup;
    place.owner = dir.parent_path();
    place.label = " (backups)";
  } else if (dir.parent_path().filename() == "snapshots") {
    place.role = GroupRole::kSnapshot;
    place.owner = dir.parent_path().parent_path();
    place.label = " (snapshot " + dir.filename().string() + ")";
  }
  return place;
}

void CheckFilterBytes(ByteSpan file, Era era, FilterKeys* keys, const std::string& sized_from,
                      FileReport& report, RebuildTap* tap);

}  // namespace

std::optional<double> VerifyFilterBytes(ByteSpan file, Era era, FilterKeys* keys,
                                        const std::string& sized_from, FileReport& report,
                                        RebuildTap* tap) {
  const std::uint64_t false_negatives_before = report.false_negative_count;
  CheckFilterBytes(file, era, keys, sized_from, report, tap);
  // A filter that could not be read still has its keys read: their damage is a finding too.
  if (keys != nullptr) keys->CheckWithoutFilter(report);
  const std::optional<double> sized = SizedKeys(keys, sized_from);
  if (keys == nullptr || report.false_negative_count == false_negatives_before) return sized;
  // A writer that serialized the filter in another era's layout (the na tables Cassandra 4.0
  // wrote with 3.x's big-endian longs): the version's reader still answers wrongly, so it stays
  // an error, but the finding says which reading answers every key.
  const std::string other = FormatAnsweringEveryKey(file, era, *keys);
  if (other.empty()) return sized;
  for (auto it = report.findings.rbegin(); it != report.findings.rend(); ++it) {
    if (it->kind != finding_kind::kFalseNegative) continue;
    it->message += "; read as " + other +
                   " every key is present: the filter was written in that layout, not the one "
                   "its version's reader expects";
    it->fields.emplace_back("answers_every_key_as", other);
    break;
  }
  return sized;
}

namespace {

void CheckFilterBytes(ByteSpan file, Era era, FilterKeys* keys, const std::string& sized_from,
                      FileReport& report, RebuildTap* tap) {
  const KeyHash hash = Facts(era).hash;
  if (hash == KeyHash::kMurmur3) {
    Result<Murmur3Filter> f = Murmur3Filter::Parse(file, report.path, era);
    Status lookups = f.ok() ? f->CheckLookups(report.path) : f.status();
    if (!lookups.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, lookups));
      return;
    }
    if (f->always_present()) {
      const bool written_by_4x =
          report.version == "na" || report.version == "nb" || report.version == "nc";
      report.Add(Severity::kWarning, finding_kind::kMissingFilter,
                 std::string("a 0-byte Filter.db: Cassandra 5.0's always-present filter (fp "
                             "chance 1.0); every key is reported present and every read of this "
                             "sstable goes to disk") +
                     (written_by_4x ? " (this version was written by Cassandra 4.0 / 4.1, whose "
                                      "deserializer expects an 8-byte header)"
                                    : ""));
      FillReport fill;
      fill.fp_rate = 1.0;
      fill.estimated_keys = 0;
      if (keys != nullptr) keys->CheckWithoutFilter(report);
      if (keys != nullptr && keys->has_keys()) {
        report.keys_checked += keys->count();
        fill.sized_keys = static_cast<double>(keys->count());
        fill.sized_keys_from = keys->complete() ? sized_from : "";
      }
      report.fill = fill;
      return;
    }
    std::optional<TappedFilter> tapped;  // a repair's: the keys' hashes kept as they are asked
    if (tap != nullptr && keys != nullptr) tapped.emplace(*f, *tap);
    CheckParsed(*f, file, keys, sized_from, Murmur3Filter::kHeaderBytes, report,
                tapped ? &*tapped : nullptr);
    if (tapped && keys->complete()) tap->MarkComplete(keys->count());
    return;
  }
  if (hash == KeyHash::kMurmur2x32 || hash == KeyHash::kMurmur2x32JavaString) {
    Result<LegacyFilter> f = LegacyFilter::Parse(file, report.path);
    if (!f.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, f.status()));
      return;
    }
    CheckParsed(*f, file, keys, sized_from, LegacyFilter::kWordsOffset, report);
    return;
  }
  Result<V10Filter> f = V10Filter::Parse(file, report.path);
  if (!f.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, f.status()));
    return;
  }
  CheckParsed(*f, file, keys, sized_from, V10Filter::kHeaderBytes, report);
}

// The component prefix of a trie-indexed sstable's Filter.db with a Partitions.db beside it
// ("<dir>/da-1-bti-"), else "".
std::string TrieIndexPrefix(const std::string& path) {
  Result<Descriptor> d = ParseDescriptor(path);
  if (!d.ok() || !bti::UsesTrieIndex(d->version, d->sstable_format) ||
      d->component != "Filter.db" || !path.ends_with(d->component)) {
    return "";
  }
  std::string prefix = path.substr(0, path.size() - d->component.size());
  std::error_code ec;
  return fs::is_regular_file(prefix + "Partitions.db", ec) ? prefix : "";
}

}  // namespace

Result<std::vector<SstableFiles>> FindSstables(const std::string& root,
                                               std::vector<SkippedName>* skipped) {
  using Key = std::tuple<std::string, std::string, std::string, bool, std::string, std::string,
                         std::string>;
  std::map<Key, SstableFiles> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::IoError(root, "cannot list the directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IoError(root, "cannot list the directory: " + ec.message());
    if (!it->is_regular_file(ec)) continue;
    const fs::path& p = it->path();
    Result<Descriptor> d = ParseDescriptor(p.filename().string());
    if (!d.ok()) continue;
    if (const NameKind kind = ClassifyName(*d); kind != NameKind::kComponent) {
      if (kind == NameKind::kLookalike && skipped)
        skipped->push_back({p.string(), LookalikeReason(*d)});
      continue;
    }
    std::string component = d->component;
    if (component.ends_with(".gz")) component.resize(component.size() - 3);
    const std::string dir = p.parent_path().string();
    Key key{dir,        d->keyspace,      d->column_family, d->temporary,
            d->version, d->generation_id, d->sstable_format};
    auto [slot, inserted] = found.try_emplace(key);
    SstableFiles& s = slot->second;
    if (inserted) {
      s.descriptor = *d;
      // What one read consults together: the keyspace (1.1 names carry it, 1.0 puts the files in
      // a folder named after it) and the column family. Snapshots and backups are copies below
      // that folder (1.0: <ks>/snapshots/<tag>/, <ks>/backups/; 1.1 the same below <ks>/<cf>/):
      // no read consults them, so they get a group of their own, labelled.
      const SnapshotPlace place = PlaceOf(p.parent_path());
      s.role = place.role;
      s.group = GroupName(*d, place, root) + place.label;
      std::string prefix = p.filename().string();
      prefix.resize(prefix.size() - d->component.size());
      s.filter_path = (p.parent_path() / (prefix + "Filter.db")).string();
      s.index_path = (p.parent_path() / (prefix + "Index.db")).string();
      s.statistics_path = (p.parent_path() / (prefix + "Statistics.db")).string();
    }
    // A gzipped component (how fixtures are stored) is read transparently.
    if (component == "Filter.db") {
      s.has_filter = true;
      s.filter_path = p.string();
    } else if (component == "Index.db") {
      s.has_index = true;
      s.index_path = p.string();
    } else if (component == "Statistics.db" && !d->component.ends_with(".gz")) {
      s.has_statistics = true;
      s.statistics_path = p.string();
    }
  }
  std::vector<SstableFiles> out;
  for (auto& [key, s] : found) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const SstableFiles& a, const SstableFiles& b) {
    return std::tie(a.group, a.descriptor.generation, a.descriptor.generation_id, a.filter_path) <
           std::tie(b.group, b.descriptor.generation, b.descriptor.generation_id, b.filter_path);
  });
  return out;
}

FileReport VerifySstable(const SstableFiles& sstable) {
  FileReport report;
  report.path = sstable.filter_path;
  const Descriptor& d = sstable.descriptor;
  report.version = d.version;
  const Era era = d.era();
  report.format = FormatNameFor(era);
  if (d.temporary) {
    report.Add(Severity::kInfo, finding_kind::kTemporary,
               "a temporary sstable (tmp-): Cassandra deletes it at startup; not checked");
    return report;
  }
  report.group = sstable.group;
  report.group_role = sstable.role;
  // BTI and ScyllaDB's ms / mt index their partitions in Partitions.db (a trie), not Index.db.
  const bool trie_index = bti::UsesTrieIndex(d.version, d.sstable_format);
  if (!sstable.has_index && !trie_index) {
    report.Add(Severity::kError, finding_kind::kMissingIndex,
               "no Index.db (" + sstable.index_path +
                   "): Cassandra cannot open this sstable, and its keys cannot be checked");
  }
  std::unique_ptr<FilterKeys> keys;
  if (trie_index) {
    std::string prefix = sstable.index_path;
    prefix.resize(prefix.rfind("Index.db"));
    keys = std::make_unique<PartitionsDbKeys>(prefix, d.version, d.sstable_format, report,
                                              CountIsLowerBound::kOnIndexOrUnsupported,
                                              sstable.limits);
  } else if (sstable.has_index) {
    keys = LoadIndex(sstable.index_path, d.version, era, report, sstable.forced_key_form,
                     CountIsLowerBound::kOnIndexOrUnsupported, sstable.limits);
  }
  if (keys) ExpectIndexCount(sstable, trie_index, *keys);
  if (!sstable.has_filter) {
    report.Add(Severity::kWarning, finding_kind::kMissingFilter,
               Facts(era).hash == KeyHash::kMurmur3
                   ? "no Filter.db: the table's bloom_filter_fp_chance is 1.0 (Cassandra writes no "
                     "filter and uses its always-present one); every key is reported present and "
                     "every read of this sstable goes to disk"
               : HashesJavaStrings(era)
                   ? "no Filter.db: the releases that wrote this version (0.4 - 0.7 beta) always "
                     "wrote one and cannot open the sstable without it; Cassandra 1.0 rebuilds "
                     "the filter from Index.db at load"
                   : "no Filter.db: Cassandra uses its empty filter (hash count 0), every key is "
                     "reported present and every read of this sstable goes to disk");
    // The empty filter answers "present" for any key: fp rate 1 for the group.
    FillReport fill;
    fill.fp_rate = 1.0;
    fill.estimated_keys = 0;
    if (keys) keys->CheckWithoutFilter(report);
    if (keys && keys->has_keys()) {
      report.keys_checked = keys->count();
      fill.sized_keys = static_cast<double>(keys->count());
      fill.sized_keys_from = "index";
    }
    report.fill = fill;
    return report;
  }
  std::unique_ptr<InputFile> filter = OpenOrReport(sstable.filter_path, "Filter.db", report);
  if (!filter) {
    if (keys) keys->CheckWithoutFilter(report);  // the index's own damage is still a finding
    return report;
  }
  // A damaged index (or keys left unread) only gives a lower bound of the key count: no fill
  // judgement from it.
  const std::optional<double> sized =
      VerifyFilterBytes(filter->bytes(), era, keys.get(), "index", report, sstable.tap);
  if (sstable.has_statistics) {
    CheckStatistics(sstable.statistics_path, d.version, d.sstable_format,
                    sized ? std::optional<std::int64_t>(static_cast<std::int64_t>(*sized))
                          : std::nullopt,
                    report);
  }
  return report;
}

FileReport VerifyFilterFile(const std::string& path, Era era, const std::string& version,
                            const KeyStream* keys, const std::string& index_path,
                            std::optional<IndexKeyForm> forced_key_form,
                            const StreamLimits& limits) {
  FileReport report;
  report.path = path;
  report.format = FormatNameFor(era);
  report.version = version;
  if (Result<Descriptor> d = ParseDescriptor(path); d.ok()) {
    const SnapshotPlace place = PlaceOf(fs::path(path).parent_path());
    if (!d->sstable_format.empty()) {
      report.group = GroupName(*d, place, ".") + place.label;
    } else {
      std::string keyspace = d->keyspace;
      if (keyspace.empty()) keyspace = place.owner.filename().string();
      report.group =
          (keyspace.empty() ? std::string() : keyspace + "/") + d->column_family + place.label;
    }
    report.group_role = place.role;
  }
  std::unique_ptr<FilterKeys> filter_keys;
  std::string sized_from;
  KeyList java_keys;
  std::unique_ptr<KeyStream> java_stream;
  if (!index_path.empty()) {
    filter_keys = LoadIndex(index_path, version.empty() ? "hc" : version, era, report,
                            forced_key_form, CountIsLowerBound::kOnIndex, limits);
    sized_from = "index";
  } else if (keys != nullptr) {
    // Keys the user says the filter holds: the fill must be explainable by that many.
    sized_from = "keys";
    if (HashesJavaStrings(era)) {
      // UTF-8 text, hashed as Java Strings: a key that is not text cannot be asked, and none is
      // asked then. The 0.6 filter's keys are read whole (its sstables are small and rare).
      Result<KeyList> utf8 = CollectKeys(*keys);
      Result<KeyList> strings =
          utf8.ok() ? JavaStringKeysFromUtf8(*utf8, "--keys") : Result<KeyList>(utf8.status());
      if (!strings.ok()) {
        report.findings.push_back(FindingFromStatus(
            Severity::kError, utf8.ok() ? finding_kind::kKeyText : finding_kind::kUnreadable,
            strings.status()));
        return report;
      }
      java_keys = std::move(strings).value();
      java_stream = KeyListStream(java_keys, keys->source());
      keys = java_stream.get();
    }
    filter_keys = std::make_unique<KeyStreamKeys>(keys, CountIsLowerBound::kNever, limits);
  } else if (std::string prefix = TrieIndexPrefix(path); !prefix.empty()) {
    // A trie-indexed sstable's Filter.db given alone: its keys through the Partitions.db beside it.
    const Descriptor d = *ParseDescriptor(path);
    filter_keys = std::make_unique<PartitionsDbKeys>(prefix, d.version, d.sstable_format, report,
                                                     CountIsLowerBound::kOnAnyError, limits);
    sized_from = "index";
  }
  std::unique_ptr<InputFile> in = OpenOrReport(path, "filter", report);
  if (!in) {
    if (filter_keys)
      filter_keys->CheckWithoutFilter(report);  // the index's own damage is a finding
    return report;
  }
  VerifyFilterBytes(in->bytes(), era, filter_keys.get(), sized_from, report);
  return report;
}

}  // namespace bloomcodec::cassandra
