#include "leveldb/table/verify.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

using blocktable::BlockHandle;

namespace {

namespace fs = std::filesystem;

// Per filter of the filter block: the distinct keys hashed into it. LevelDB adds every key of
// a block (duplicates of a user key across sequence numbers included), but a duplicate sets no
// new bit, so the fill is judged against distinct keys; duplicates are adjacent (keys sorted).
struct FilterKeys {
  std::uint64_t distinct = 0;
  ByteVector last;
  bool any = false;
};

bool IsFalseNegativeFinding(const Status& s) {
  // TableReader::Verify reports the first stored key its filter misses with this "found" text;
  // the per-key pass below lists every one, so that finding would only repeat the first.
  return s.message().ends_with("found a false negative");
}

void AddFill(const TableReader& table, const FilterBlockLayout& layout,
             const std::vector<FilterKeys>& keys, FileReport& report) {
  const TableFilter& tf = *table.filter();
  ByteSpan contents = tf.contents.bytes();
  FillReport fill;
  double weighted_fp = 0;
  double weight = 0;
  double sized = 0;
  std::uint64_t overfilled = 0;
  std::optional<std::uint64_t> first_overfilled_offset;
  std::string first_overfilled;
  for (std::size_t i = 0; i < layout.filters.size(); ++i) {
    const FilterRange& r = layout.filters[i];
    if (r.empty()) continue;
    BloomFilterView view(contents.subspan(r.start, r.size()), tf.flavor);
    const std::uint64_t n = i < keys.size() ? keys[i].distinct : 0;
    FillStatistics s = ComputeFillStatistics(view.bit_count(), view.bits_set(), view.hash_count());
    fill.bits += s.bits;
    fill.bits_set += s.bits_set;
    fill.hash_count = std::max(fill.hash_count, s.hash_count);
    if (s.hash_count > 0 && s.bits > 0) fill.estimated_keys += s.estimated_keys;
    weighted_fp += static_cast<double>(n) * s.false_positive_rate;
    weight += static_cast<double>(n);
    sized += static_cast<double>(n);
    const std::string reason = OverfillReason(s, static_cast<double>(n), "in its data blocks");
    if (!reason.empty() && overfilled++ == 0) {
      first_overfilled_offset = tf.handle.offset + r.start;
      first_overfilled = "filter " + std::to_string(i) + ": " + reason;
    }
  }
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = weight > 0 ? weighted_fp / weight : 0;
  fill.sized_keys = sized;
  fill.sized_keys_from = "table";
  report.fill = fill;
  if (overfilled > 0) {
    report.Add(Severity::kError, finding_kind::kOverfilled,
               std::to_string(overfilled) + " filter(s) hold more bits than their keys can set; " +
                   first_overfilled + ": the filter was damaged or built for other keys",
               first_overfilled_offset);
  }
}

// TableReader::Open fails with InvalidArgument only when it cannot tell the key kind (no sequence
// is asked for); every damage is Corrupt.
bool KindUndecidable(const Status& s) { return s.code() == StatusCode::kInvalidArgument; }

// Opens the table for verifying. A table without a filter whose keys fit both kinds needs no
// kind for the filter check (there is none): the kind only decides the key order checked, so
// the one the table verifies under is taken (a database's first; its keys look internal).
Result<TableReader> OpenForVerify(ByteSpan file, const std::string& path, KeyKind key_kind,
                                  bool probes, FilterWriter writer) {
  TableOpenOptions options;
  options.verify_checksums = true;
  options.key_kind = key_kind;
  options.writer = writer;
  Result<TableReader> opened = TableReader::Open(file, path, options);
  if (opened.ok() || key_kind != KeyKind::kAuto || probes || !KindUndecidable(opened.status())) {
    return opened;
  }
  options.key_kind = KeyKind::kUser;
  Result<TableReader> user = TableReader::Open(file, path, options);
  if (!user.ok() || user->filter()) return opened;
  if (user->Verify().ok()) return user;
  options.key_kind = KeyKind::kPlain;
  Result<TableReader> plain = TableReader::Open(file, path, options);
  if (plain.ok() && plain->Verify().ok()) return plain;
  return user;  // damaged either way: report it in the order of the likelier writer
}

}  // namespace

Status CheckWriterFits(const std::string& path, FilterWriter writer) {
  if (writer == FilterWriter::kAuto) return Status();
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return Status();  // VerifyTable reports it
  TableOpenOptions options;
  options.key_kind = KeyKind::kPlain;  // any kind: only the filter's name matters here
  options.writer = writer;
  Result<TableReader> opened = TableReader::Open(in->bytes(), path, options);
  // A mismatch is the caller's (InvalidArgument); damage is left to VerifyTable.
  if (!opened.ok() && opened.status().code() == StatusCode::kInvalidArgument) {
    return opened.status();
  }
  return Status();
}

Status CheckKeyKindKnown(const std::string& path, KeyKind key_kind, bool probes) {
  if (key_kind != KeyKind::kAuto) return Status();
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return Status();  // the verify task reports it as a finding of the file
  // Damage is the task's finding; only an unknown kind the check needs is the caller's to fix.
  // (Block checksums and the full Verify are left to the task: this runs before any work.)
  TableOpenOptions options;
  Result<TableReader> t = TableReader::Open(in->bytes(), path, options);
  if (t.ok() || !KindUndecidable(t.status())) return Status();
  if (!probes) {
    options.key_kind = KeyKind::kPlain;  // any kind opens it: only to see whether it has a filter
    Result<TableReader> plain = TableReader::Open(in->bytes(), path, options);
    if (plain.ok() && !plain->filter()) return Status();
  }
  return t.status();
}

bool IsTableFileName(std::string_view name) {
  // A gzipped table (how bundled fixtures are stored) is read transparently by InputFile.
  if (name.ends_with(".gz")) name.remove_suffix(3);
  std::string_view stem;
  if (name.ends_with(".ldb") || name.ends_with(".sst")) {
    stem = name.substr(0, name.size() - 4);
  } else {
    return false;
  }
  return !stem.empty() &&
         std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool LooksLikeDatabase(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dir) / "CURRENT", ec)) return true;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsTableFileName(it->path().filename().string())) return true;
  }
  return false;
}

Result<std::vector<std::string>> FindTables(const std::string& dir) {
  std::vector<std::string> tables;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
    if (IsTableFileName(it->path().filename().string())) tables.push_back(it->path().string());
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

FileReport VerifyTable(const std::string& path, KeyKind key_kind, const KeyList* probes,
                       const std::string& group, FilterWriter writer) {
  FileReport report;
  report.path = path;
  report.format = "leveldb-table";
  report.group = group;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  Result<TableReader> opened =
      OpenForVerify(in->bytes(), path, key_kind, probes != nullptr, writer);
  if (!opened.ok() && KindUndecidable(opened.status())) {
    // Not damage: the caller did not say how to read the keys (PlanVerify refuses this case
    // before any work; a direct caller gets it here, not as a structure finding).
    report.Add(Severity::kError, finding_kind::kNoKeys, opened.status().ToString());
    return report;
  }
  if (!opened.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, opened.status()));
    return report;
  }
  const TableReader& table = *opened;
  const std::optional<TableFilter>& tf = table.filter();
  if (tf) {
    report.version = tf->metaindex_key.substr(std::string_view("filter.").size());
    report.writer = std::string(table.writer());
    if (tf->legacy_v117) {
      report.Add(Severity::kWarning, finding_kind::kUnsupported,
                 "the filter was written by LevelDB <= 1.17 (" + tf->metaindex_key +
                     "); LevelDB 1.18 and later ignore it and read every data block" +
                     (tf->writer_ambiguous
                          ? std::string(" (or by goleveldb, which uses it: no key of the table "
                                        "has a tail byte >= 0x80 to tell the two hashes apart)")
                          : std::string()));
      // The group's figure assumes a current reader: for it this table has no filter.
      report.filter_ignored_by_reader = true;
    }
  } else {
    report.Add(Severity::kWarning, finding_kind::kNoFilter,
               "no filter block: every lookup reads a data block");
    // Without a filter every probe in range is answered "may contain": a read pays fp rate 1.
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
  }

  Result<std::uint64_t> verified = table.Verify();
  bool structure_failed = false;
  if (!verified.ok() && !IsFalseNegativeFinding(verified.status())) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, verified.status()));
    structure_failed = true;
  }

  // Every stored key against the filter of its block, all of them counted.
  std::optional<FilterBlockLayout> layout;
  std::optional<FilterBlockReader> reader;
  if (tf) {
    auto parsed = ParseFilterBlockLayout(tf->contents.bytes(), path, tf->handle.offset);
    if (parsed.ok()) {
      layout = std::move(parsed).value();
      reader.emplace(tf->contents.bytes(), tf->flavor);
    }
  }
  const bool user = table.key_kind() == KeyKind::kUser;
  std::vector<FilterKeys> per_filter(layout ? layout->filters.size() : 0);
  Status pass = table.ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle& block) {
    ByteSpan filter_key = user ? UserKeyOf(key) : key;
    ++report.keys_checked;
    if (reader && !reader->KeyMayMatch(block.offset, filter_key)) {
      report.AddFalseNegative(filter_key);
    }
    if (layout) {
      std::uint64_t i = layout->IndexFor(block.offset);
      if (i < per_filter.size()) {
        FilterKeys& fk = per_filter[i];
        if (!fk.any ||
            !std::equal(fk.last.begin(), fk.last.end(), filter_key.begin(), filter_key.end())) {
          ++fk.distinct;
          fk.last.assign(filter_key.begin(), filter_key.end());
          fk.any = true;
        }
      }
    }
    return Status();
  });
  if (!pass.ok() && !structure_failed) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, pass));
    structure_failed = true;
  }
  report.FinishFalseNegatives("the filter of their data block");

  if (probes != nullptr) {
    std::vector<std::uint8_t> answers(probes->size());
    Status s = table.MayContainBatch(*probes, answers);
    if (!s.ok()) {
      if (!structure_failed) {
        report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
      }
    } else {
      const std::uint64_t before = report.false_negative_count;
      report.keys_checked += probes->size();
      for (std::size_t i = 0; i < answers.size(); ++i) {
        if (answers[i] == 0) report.AddFalseNegative((*probes)[i]);
      }
      if (report.false_negative_count > before) {
        report.Add(Severity::kError, finding_kind::kFalseNegative,
                   std::to_string(report.false_negative_count - before) + " of " +
                       std::to_string(probes->size()) +
                       " given keys answered 'definitely absent' by the table's read path");
      }
    }
  }
  if (tf && layout && pass.ok()) AddFill(table, *layout, per_filter, report);
  return report;
}

}  // namespace bloomcodec::leveldb
