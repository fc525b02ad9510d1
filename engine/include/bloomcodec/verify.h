// Verifying filter files and whole data directories: the findings of each file, a parallel
// runner, and the summary a read path cares about.
//
//   bloomcodec::VerifyOptions options;                         // keys come from each sstable
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::VerifyReport report,
//                               bloomcodec::VerifyPaths({"/var/lib/cassandra/data"}, options));
//   std::fputs(bloomcodec::VerifyReportText(report).c_str(), stdout);
//   return report.summary.errors > 0 ? 1 : 0;
//
// What a file is checked for: its structure (every byte offset the format defines, block
// checksums of tables), every known key answered "may contain" (a false negative is the worst
// defect a filter can have: a read skips data that exists), and its fill against what its
// parameters allow for the number of keys it was sized for.
//
// Contract: a damaged or unreadable file found inside a directory is a finding of that file (an
// error), never a failure of the whole run: one bad sstable must not hide the state of the
// others. VerifyPaths fails (a Status) only for what the caller named: a path that does not
// exist, a directory holding nothing to verify, an undecidable format, a single table's key kind
// the check needs but cannot tell, a key source that cannot be read. Reports come back in a
// deterministic order (paths as given; inside a directory, sorted by path) whatever the number
// of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/family_options.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

enum class Severity {
  kInfo,     // worth knowing, nothing wrong (e.g. a pre-0.7 sstable whose filter is rebuilt)
  kWarning,  // the original works, but something is off (trailing bytes, K = 0, no filter)
  kError,    // a reader would be wrong or fail: false negatives, damage, a missing Index.db
};
std::string_view SeverityName(Severity severity);

// Stable names of finding kinds (scripts match on them).
namespace finding_kind {
inline constexpr std::string_view kStructure = "structure";           // bytes the format forbids
inline constexpr std::string_view kUnreadable = "unreadable";         // the OS refused the file
inline constexpr std::string_view kTrailingBytes = "trailing-bytes";  // ignored by the original
inline constexpr std::string_view kHashCount = "hash-count";          // K = 0 or K > 20
inline constexpr std::string_view kFalseNegative = "false-negative";
inline constexpr std::string_view kOverfilled = "overfilled";  // fill beyond the sizing
inline constexpr std::string_view kUndersized = "undersized";  // saturated by the counted keys
inline constexpr std::string_view kMissingFilter = "missing-filter";  // every key reported present
inline constexpr std::string_view kMissingIndex = "missing-index";    // no keys to check against
inline constexpr std::string_view kIndex = "index";                   // Index.db is damaged
inline constexpr std::string_view kNoKeys = "no-keys";                // nothing to check keys with
inline constexpr std::string_view kStatistics = "statistics";         // Cassandra's Statistics.db
inline constexpr std::string_view kFpChance = "fp-chance";  // fill far from the configured chance
inline constexpr std::string_view kKeyText = "key-text";    // a key a format hashes as text is not
inline constexpr std::string_view kRebuiltFilter = "rebuilt-filter";  // version < c
inline constexpr std::string_view kPartitioner = "partitioner";  // Cassandra < e: Index.db keys
inline constexpr std::string_view kTemporary = "temporary";      // tmp- sstable, not checked
inline constexpr std::string_view kUnsupported = "unsupported";  // a format not read here
inline constexpr std::string_view kUnknown = "unknown";     // no magic we know: maybe not a table
inline constexpr std::string_view kNoFilter = "no-filter";  // a table without a filter
inline constexpr std::string_view kNearKeys = "near-keys";  // keys next to stored ones pass often
// Databases read through CURRENT and their MANIFEST (LevelDB, RocksDB):
inline constexpr std::string_view kManifest = "manifest";           // CURRENT / MANIFEST damage
inline constexpr std::string_view kMissingTable = "missing-table";  // live, but not on disk
inline constexpr std::string_view kObsolete = "obsolete";           // on disk, no version has it
inline constexpr std::string_view kKeyRange = "key-range";  // keys outside the MANIFEST's range
inline constexpr std::string_view kGone = "gone";           // deleted during the run (live nodes)
inline constexpr std::string_view kChanged = "changed";     // moved under the reader, not judged
// Cassandra data directories only:
inline constexpr std::string_view kNotSstable = "not-sstable";  // named like one, is not
inline constexpr std::string_view kNoDatabase = "no-database";  // a directory without one
inline constexpr std::string_view kKeySource = "key-source";  // where a BTI table's keys come from
}  // namespace finding_kind

struct Finding {
  Severity severity = Severity::kError;
  std::string kind;
  std::string message;
  std::optional<std::uint64_t> offset;  // absolute byte offset in the file, when there is one
  // Extra string fields of the finding's JSON object (name, value), e.g. a false-negative
  // finding's "answers_every_key_as"; empty for most findings.
  std::vector<std::pair<std::string, std::string>> fields;
};

// A finding from a failed Status (offset and message carried over; the file name dropped, as
// the report already names it).
Finding FindingFromStatus(Severity severity, std::string_view kind, const Status& status);

// How full a file's filter is, and what that implies.
struct FillReport {
  std::uint64_t bits = 0;
  std::uint64_t bits_set = 0;
  std::uint32_t hash_count = 0;
  double fill_ratio = 0;
  double estimated_keys = 0;  // Swamidass & Baldi; summed over the filters of a table
  double fp_rate = 0;         // what one read of this file sees for an absent key
  // The key count the fill is judged against, and where it comes from: "index" (Index.db),
  // "keys" (--keys), "table" (a table's own keys) or "parameters" (the most keys the filter's
  // size and K allow, as inspect's sizing computes them). Unset when nothing says.
  std::optional<double> sized_keys;
  std::string sized_keys_from;
};

// verify's judgment of one filter's fill (docs/cli.md, "Evidence standard"). `counted` is the
// key count it is judged against (the writer's own count of what it added, the keys given, or
// the most keys its size and K allow), `from` names it in the message ("in Index.db", "given",
// ...), `uncounted` the entries the writer may add beyond that count. A fill above
// OverfillThreshold(counted + uncounted) is `overfilled` (error, false alarm <= 1e-6 per filter);
// a filter whose threshold reaches its size is not judged. Every bit set is `overfilled` when the
// count cannot set them all (same test); when it can, or without a count, it is `undersized`
// (warning): every key is answered "may contain", but the evidence is the writer's sizing, not
// damage. An empty kind: nothing to report.
struct FillVerdict {
  Severity severity = Severity::kInfo;
  std::string_view kind;
  std::string reason;
  explicit operator bool() const { return !kind.empty(); }
};
FillVerdict JudgeFill(const FillStatistics& s, std::optional<double> counted, std::string_view from,
                      double uncounted = 0);
// An estimated key count for messages: whole, or "saturated (every bit set)" when infinite
// (a cast of infinity to an integer would be undefined behaviour).
std::string EstimatedKeysText(double estimated_keys);

// How many false-negative keys a report lists (all are counted).
inline constexpr std::size_t kMaxListedFalseNegatives = 20;

// kObsolete: a table file of a database directory that no live version of its MANIFEST
// references (left behind by a crash or a copy): verified, never read.
enum class GroupRole { kLive, kSnapshot, kBackup, kObsolete };
std::string_view GroupRoleName(GroupRole role);  // "live", "snapshot", "backup", "obsolete"

// What happened to a file while verify ran, on a live node (compaction deletes sstables and
// tables between the listing and the read; writers replace them). A file that is gone or changed
// is reported, never counted as an error nor in a group's fp rate.
enum class DuringRun {
  kStable,   // read as it was listed
  kGone,     // listed, then deleted (before it was read: not judged; after: judged as read)
  kChanged,  // replaced or modified under the reader twice in a row: not judged
};
struct FileReport {
  std::string path;
  std::string format;   // a format name of the CLI contract, or "" when not decided
  std::string version;  // Cassandra: the sstable version; LevelDB: the filter policy
  // LevelDB: who wrote the filter, decided from the table's keys ("leveldb-1.18+",
  // "leveldb-1.17", "goleveldb", "leveldb-1.17-or-goleveldb"); "" when not told.
  std::string writer;
  std::string group;  // what a read consults together: "<ks>/<cf>" or a database directory
  std::vector<Finding> findings;
  std::uint64_t keys_checked = 0;
  std::uint64_t false_negative_count = 0;
  std::vector<ByteVector> false_negatives;  // the first kMaxListedFalseNegatives, in key order
  std::optional<FillReport> fill;
  // Where the group stands in what reads see. Snapshots and incremental backups are copies that
  // no read consults: they are verified but kept out of their live group's combined fp.
  GroupRole group_role = GroupRole::kLive;
  // The reader the group summary assumes ignores this file's filter (a LevelDB <= 1.17 filter,
  // which 1.18+ never looks up): the group counts it as p = 1 whatever its own fp_rate.
  bool filter_ignored_by_reader = false;
  // The database's reads never consult filters at this table's level (Pebble at L6: DB.Get and
  // iterators skip L6 filters unless UseL6Filters): the group counts it as p = 1 whatever its
  // own fp_rate.
  bool filter_unread_at_level = false;
  // A table of a database read through its MANIFEST: its level (-1: not known, e.g. the
  // directory listing was used), its column family (RocksDB; "default" for LevelDB's one) and
  // the MANIFEST that lists it.
  int level = -1;
  std::string column_family;
  std::string manifest;
  DuringRun during_run = DuringRun::kStable;

  void Add(Severity severity, std::string_view kind, std::string message,
           std::optional<std::uint64_t> offset = std::nullopt);
  // Records the false negative `key` (counted always, listed up to the cap).
  void AddFalseNegative(ByteSpan key);
  // Asks every key of `keys` through `ask` (one answer per key of a chunk, 1 = may contain) and
  // records keys_checked and the false negatives. `ask` is first called with no keys: what a
  // file refuses whatever the keys. When `ask` fails, nothing is kept of what it answered, as if
  // every key had been asked at once, and `asked` is its error; `read` is the stream's error (a
  // key file that changed after it was first read), with the keys before it kept.
  struct Asked {
    Status asked;
    Status read;
  };
  using AskFn =
      std::function<Status(std::span<const ByteSpan> keys, std::span<std::uint8_t> answers)>;
  Asked AskKeys(const KeyStream& keys, const AskFn& ask);
  // Turns the counted false negatives into one error finding (call once, after probing).
  void FinishFalseNegatives(std::string_view filter_description);
  Severity worst() const;  // kInfo when there are no warnings or errors
  // "ok", "warning" or "error" by the worst finding; "gone" or "changed" when during_run says so.
  std::string_view status_name() const;
};

// One level of a database whose MANIFEST was read: what a read of an absent key meets there.
struct LevelSummary {
  int level = 0;
  std::uint64_t tables = 0;
  // Level 0: 1 - prod(1 - p_i) over its tables (a read consults every one, they overlap).
  // Above: the mean of the tables' p_i weighted by their keys checked (a read consults the one
  // table whose key range holds the key; a table without keys counted weighs as the level's
  // average table).
  double fp_rate = 0;
};

struct GroupSummary {
  std::string name;
  GroupRole role = GroupRole::kLive;  // snapshot / backup groups are copies no read consults
  std::uint64_t tables = 0;           // files counted in combined_fp_rate
  // Of `tables`, counted as p = 1: damaged files (an error and no readable filter; a damaged
  // filter protects nothing) and filters the assumed reader ignores (LevelDB 1.18+ reading a
  // 1.17 table).
  std::uint64_t damaged = 0;
  std::uint64_t ignored_filters = 0;
  // Of `tables`, counted as p = 1 because reads skip the filters of their level (Pebble's L6).
  std::uint64_t unread_level_filters = 0;
  // Files of the group not in the figure: nothing on disk tells their rate (Cassandra < c
  // rebuilds the filter from Index.db at load).
  std::uint64_t not_counted = 0;
  double combined_fp_rate = 0;  // 1 - prod(1 - p_i), over `levels` when they are known
  // The MANIFEST the group's levels come from ("" when the levels are not known: every table is
  // then taken as consulted, as on level 0).
  std::string manifest;
  std::vector<LevelSummary> levels;  // by level; empty when not known
};

struct VerifySummary {
  std::uint64_t files = 0;
  std::uint64_t ok = 0;
  std::uint64_t warnings = 0;
  std::uint64_t errors = 0;
  // Files that vanished or kept changing during the run (DuringRun): not in ok, warnings or
  // errors, nor in any group's rate. files = ok + warnings + errors + gone + changed.
  std::uint64_t gone = 0;
  std::uint64_t changed = 0;
  std::vector<GroupSummary> groups;  // sorted by name
};

struct VerifyReport {
  std::vector<FileReport> files;
  VerifySummary summary;
};

// Groups by FileReport::group and group_role (files without a group are left out). A grouped
// file counts with its fill's fp rate; with p = 1 when its filter is ignored by the reader or
// when it has an error and no fill (damaged); otherwise (no fill, no error) it is not counted.
VerifySummary Summarize(std::span<const FileReport> files);

// One unit of work: verifies one file (or one sstable) and describes it.
using VerifyTask = std::function<FileReport()>;
// Called after each finished task with (done, total); may be called from any worker thread,
// never concurrently.
using VerifyProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs `tasks` on `threads` workers (0: one per core this process may run on) and returns their reports in task
// order.
std::vector<FileReport> RunVerifyTasks(std::span<const VerifyTask> tasks, unsigned threads = 0,
                                       const VerifyProgress& progress = {});

// Where the keys of a single file come from (directories always bring their own).
enum class KeySource {
  kNone,       // a table checks its own keys, a Filter.db the Index.db beside it (if any);
               // otherwise structure and statistics only
  kKeyList,    // VerifyOptions::keys
  kIndexDb,    // VerifyOptions::index_path: a Cassandra Index.db
  kFromTable,  // a LevelDB table's own data blocks
};

struct VerifyOptions {
  KeySource key_source = KeySource::kNone;
  // kKeyList: the keys, streamed (a key file of any size); the caller reads it once first, so
  // that a malformed line is bad input (OpenKeyFile, CountKeys), not a finding.
  const KeyStream* keys = nullptr;
  std::string keys_source_name;         // for messages
  std::string index_path;               // kIndexDb
  const FormatCodec* format = nullptr;  // --format for single files; null: detect
  // The families' own options (bloomcodec/<family>/options.h): a LevelDB table's key kind and
  // writer, Cassandra's partitioner, RocksDB's prefix extractor. A family's option that does not
  // apply to a path is refused or ignored as its flag's declaration says (bloomcodec/flags.h).
  FamilyOptions family;
  unsigned threads = 0;  // 0: one per core this process may run on (its CPU affinity)
  VerifyProgress progress;
};

// The tasks for `paths` (files and directories), without running them. Fails for a path that
// cannot be read, a directory without anything to verify, a file whose format cannot be decided,
// a single table whose key kind is needed and undecidable, or a key source used with a directory.
Result<std::vector<VerifyTask>> PlanVerify(std::span<const std::string> paths,
                                           const VerifyOptions& options);
// PlanVerify, RunVerifyTasks and Summarize.
Result<VerifyReport> VerifyPaths(std::span<const std::string> paths, const VerifyOptions& options);

// inspect of a database directory (LevelDB, RocksDB): CURRENT, the MANIFEST it names, the live
// tables per column family and level with their key ranges and sizes, obsolete table files and
// any findings about CURRENT and the MANIFEST (docs/cli.md, "inspect"). Fails for a directory
// no family recognises.
Result<Document> InspectDirectory(const std::string& dir);
// inspect of one file of `format`: {"file": `path`, then the fields of format.Inspect}, the
// document `inspect --json` lists for it (the command line, the Python module).
Result<Document> InspectFile(ByteSpan bytes, std::string_view path, const FormatCodec& format);
// The whole document `inspect --json` prints around those of InspectFile and InspectDirectory:
// {"schema_version": N, "files": `files`} (docs/schema/inspect.schema.json).
Document InspectDocument(Document files);

// The --json document (documented in docs/cli.md, "verify", "--json").
Document VerifyReportJson(const VerifyReport& report);
// The human lines: one per file, its findings indented below, then the summary.
std::string VerifyReportText(const VerifyReport& report);

}  // namespace bloomcodec
