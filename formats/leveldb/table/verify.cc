#include "leveldb/table/verify.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "blocktable/block_handle.h"
#include "blocktable/stream.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "codec/parallel.h"
#include "codec/short_bytes.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

using blocktable::Block;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::BlockRange;
using blocktable::CheckedBlockWalk;
using blocktable::CompareKeys;
using blocktable::KeyOrder;
using blocktable::StreamLimits;

namespace {

void AddFill(const TableReader& table, const FilterBlockLayout& layout,
             const std::vector<std::uint64_t>& distinct, FileReport& report) {
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
    const std::uint64_t n = i < distinct.size() ? distinct[i] : 0;
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

// The data blocks of a table, as its index lists them (read once, before any range runs).
struct DataBlocks {
  std::vector<BlockHandle> handles;
  KeyList separators;  // each block's index key
  Status index_error;  // the index could not be walked past the last block listed
};

// What is shared by the ranges of one table.
struct TableScan {
  const TableReader& table;
  const InputFile& file;
  const DataBlocks& blocks;
  const FilterBlockLayout* layout;  // the strict layout: distinct keys per filter (or null)
  const FilterBlockReader* reader;  // answers for the stored keys (or null: no usable filter)
  bool check_structure;             // TableReader::Verify's checks before the data blocks passed
  // Filter numbers never decrease from block to block (always, unless the index is damaged):
  // a filter left behind is never met again, so a range needs no memory of it.
  bool monotone;
  StreamLimits limits;
};

// One range's share of the result; the ranges' shares are merged in block order.
struct RangeResult {
  std::optional<Status> structure;  // the first damage TableReader::Verify meets in the range
  std::optional<Status> pass;       // a block that cannot be read or walked: the range stops
  std::uint64_t keys = 0;
  std::uint64_t false_negatives = 0;
  std::vector<ByteVector> listed;  // the first kMaxListedFalseNegatives, in key order
  // Distinct keys per filter, by runs of blocks of the same filter; a run's first key counted
  // as new (the range does not know the key before it: the merge corrects the first run).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  bool any_counted = false;
  std::uint64_t first_filter = 0;
  ByteVector first_key;
  std::uint64_t last_filter = 0;
  ByteVector last_key;
};

// The last key of a data block, as TableReader::Verify leaves it in its previous_last.
Status LastKeyOf(const TableReader& table, const BlockHandle& handle, ByteVector& out) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Block block, table.ReadDataBlock(handle));
  BlockIterator it(block, table.key_order());
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    out.assign(it.key().begin(), it.key().end());
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return Status();
}

bool SameBytes(ByteSpan a, ByteSpan b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// The value type of an internal key (the tag's low byte), as TagOf(key) & 0xff.
std::uint64_t TypeOf(ByteSpan key) { return key.size() >= 8 ? key[key.size() - 8] : 0; }

// Checks blocks [range.begin, range.end) as TableReader::Verify does (but without its
// false-negative stop: every stored key is probed here, in batches of the filter of its block),
// and walks their entries as ForEachEntry does (stopping where it would fail).
void ScanRange(const TableScan& scan, BlockRange range, RangeResult& out) {
  const TableReader& table = scan.table;
  const TableFilter* tf = table.filter() ? &*table.filter() : nullptr;
  const KeyOrder order = table.key_order();
  const bool user = table.key_kind() == KeyKind::kUser;
  const std::vector<BlockHandle>& blocks = scan.blocks.handles;
  const std::size_t num_filters = scan.layout ? scan.layout->filters.size() : 0;

  bool check = scan.check_structure;
  ByteVector previous_last;
  ByteSpan previous_separator;
  if (check && range.begin > 0) {
    // The state block begin - 1 left (if it cannot be read, an earlier range failed there).
    Status s = LastKeyOf(table, blocks[range.begin - 1], previous_last);
    if (!s.ok()) {
      out.structure = s;
      check = false;
    }
    previous_separator = scan.blocks.separators[range.begin - 1];
  }
  const auto fail = [&](Status s) {
    if (check) out.structure = std::move(s);
    check = false;
  };

  // The chunk: keys of consecutive blocks answered by one filter.
  KeyList chunk;
  const std::size_t reserved = std::min<std::size_t>(scan.limits.chunk_keys, 1 << 16);
  chunk.Reserve(reserved, reserved * 32);
  std::vector<std::uint8_t> answers;
  answers.reserve(reserved);
  std::uint64_t chunk_offset = 0;
  FilterBlockReader::Choice chunk_choice{FilterBlockReader::Choice::Kind::kAlwaysMatch, {}};
  const auto flush = [&] {
    if (chunk.empty()) return;
    answers.resize(chunk.size());
    scan.reader->KeyMayMatchBatch(chunk_offset, chunk, answers);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (answers[i] != 0) continue;
      ++out.false_negatives;
      if (out.listed.size() < kMaxListedFalseNegatives) {
        out.listed.emplace_back(chunk[i].begin(), chunk[i].end());
      }
    }
    chunk.Clear();
  };

  // Distinct keys: the filter of the last key counted and that key; with a damaged index
  // (filter numbers going back) also the last key of every filter left.
  bool counting = false;
  std::uint64_t current_filter = 0;
  std::unordered_map<std::uint64_t, ByteVector> left;

  blocktable::PageDropper dropper(&scan.file, scan.limits.drop_window);
  if (range.begin < range.end) dropper.Start(blocks[range.begin].offset);
  for (std::size_t b = range.begin; b < range.end; ++b) {
    const BlockHandle& handle = blocks[b];
    const ByteSpan separator = scan.blocks.separators[b];
    Result<Block> read = table.ReadDataBlock(handle);
    if (!read.ok()) {
      fail(read.status());
      out.pass = read.status();
      break;
    }
    const Block& block = *read;
    // One walk gives the keys and VerifyBlock's verdict. The block's checks are reported once
    // the walk is over, in TableReader::Verify's order: VerifyBlock's first (it walks the whole
    // block before the others look at any key), then the first key's order, the filter number,
    // each key's type and the last key against the index key.
    const bool checking = check;
    CheckedBlockWalk it(block, order);
    Status walked = it.SeekToFirst();
    std::optional<Status> first_key_damage, filter_damage, type_damage;
    if (checking && walked.ok() && b > 0 && it.valid()) {
      if (CompareKeys(order, previous_last, it.key()) >= 0) {
        first_key_damage =
            block.ErrorAt(0, "a first key greater than the previous block's last key");
      } else if (CompareKeys(order, previous_separator, it.key()) >= 0) {
        first_key_damage =
            block.ErrorAt(0, "a first key greater than the previous block's index key");
      }
    }
    const std::uint64_t filter_index = scan.layout ? scan.layout->IndexFor(handle.offset) : 0;
    if (checking && scan.layout && filter_index >= num_filters) {
      filter_damage =
          Status::Corrupt(table.source(), tf->handle.offset + scan.layout->array_offset,
                          "a filter for the data block at offset " + std::to_string(handle.offset) +
                              " (filter " + std::to_string(filter_index) + ")",
                          std::to_string(num_filters) + " filters");
    }
    if (walked.ok() && scan.reader) {
      const FilterBlockReader::Choice choice = scan.reader->FilterFor(handle.offset);
      if (choice.kind != chunk_choice.kind || choice.filter.data() != chunk_choice.filter.data() ||
          choice.filter.size() != chunk_choice.filter.size()) {
        flush();
        chunk_choice = choice;
      }
      if (chunk.empty()) chunk_offset = handle.offset;
    }
    const bool counted = scan.layout && filter_index < num_filters;
    while (it.valid()) {
      const ByteSpan key = it.key();
      if (checking && user && !type_damage && TypeOf(key) > 1) {
        type_damage = block.ErrorAt(it.entry_position(), "an internal key of type 0 or 1",
                                    "type " + std::to_string(TypeOf(key)));
      }
      const ByteSpan filter_key = user ? UserKeyOf(key) : key;
      ++out.keys;
      if (scan.reader) {
        if (chunk.size() >= scan.limits.chunk_keys) {
          flush();
          chunk_offset = handle.offset;
        }
        chunk.Add(filter_key);
      }
      if (counted) {
        bool fresh;
        if (!counting || filter_index != current_filter) {
          if (counting && !scan.monotone) left[current_filter] = out.last_key;
          auto earlier = scan.monotone ? left.end() : left.find(filter_index);
          fresh = earlier == left.end() || !SameBytes(earlier->second, filter_key);
          if (!counting) {
            out.any_counted = true;
            out.first_filter = filter_index;
            out.first_key.assign(filter_key.begin(), filter_key.end());
          }
          out.runs.emplace_back(filter_index, 0);
          counting = true;
          current_filter = filter_index;
        } else if (it.entries() > 1) {
          // The last key counted is the entry before, which shares it.shared() bytes.
          const ByteSpan previous = it.previous_key();
          fresh = !SameBytesAfter(user ? UserKeyOf(previous) : previous, filter_key, it.shared());
        } else {
          fresh = !SameBytes(out.last_key, filter_key);
        }
        if (fresh) ++out.runs.back().second;
      }
      if (walked = it.Next(); !walked.ok()) break;
    }
    // The last key counted, kept once per block rather than per key.
    if (counted && it.entries() > 0) {
      const ByteSpan key = it.key();
      const ByteSpan filter_key = user ? UserKeyOf(key) : key;
      out.last_key.assign(filter_key.begin(), filter_key.end());
      out.last_filter = filter_index;
    }
    if (checking) {
      if (!it.damage().ok()) {
        fail(it.damage());
      } else if (it.entries() == 0) {
        fail(block.ErrorAt(0, "at least one entry in a data block"));
      }
      if (first_key_damage) fail(*first_key_damage);
      if (filter_damage) fail(*filter_damage);
      if (type_damage) fail(*type_damage);
      if (check && it.entries() > 0) previous_last.assign(it.key().begin(), it.key().end());
    }
    if (!walked.ok()) {
      out.pass = std::move(walked);
      break;
    }
    if (check && CompareKeys(order, previous_last, separator) > 0) {
      fail(block.ErrorAt(0, "a last key at most the block's index key"));
    }
    previous_separator = separator;
    dropper.Done(handle.offset + handle.size + blocktable::kBlockTrailerSize);
  }
  if (scan.reader) flush();
  if (range.begin < range.end) {
    const BlockHandle& last = blocks[range.end - 1];
    dropper.Done(last.offset + last.size + blocktable::kBlockTrailerSize, true);
  }
}

// Every data block checked and every stored key probed, in ranges on the run's workers; the
// report gets exactly what one pass over the whole table gives.
struct ScanTotals {
  std::optional<Status> structure;
  std::optional<Status> pass;
  std::vector<std::uint64_t> distinct;  // per filter of the filter block
};

ScanTotals ScanTable(const TableScan& scan, FileReport& report) {
  const std::vector<BlockHandle>& blocks = scan.blocks.handles;
  std::vector<std::uint64_t> sizes(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    sizes[i] = blocks[i].size + blocktable::kBlockTrailerSize;
  }
  std::vector<BlockRange> ranges;
  if (scan.monotone) {
    ranges = blocktable::SplitIntoRanges(sizes, scan.limits);
  } else if (!blocks.empty()) {
    ranges.push_back(BlockRange{0, blocks.size()});
  }
  std::vector<RangeResult> results(ranges.size());
  ParallelFor(ranges.size(), [&](std::size_t r) { ScanRange(scan, ranges[r], results[r]); });

  ScanTotals totals;
  totals.distinct.assign(scan.layout ? scan.layout->filters.size() : 0, 0);
  bool carried = false;
  std::uint64_t carried_filter = 0;
  ByteVector carried_key;
  for (RangeResult& r : results) {
    if (!totals.structure && r.structure) totals.structure = std::move(r.structure);
    report.keys_checked += r.keys;
    for (const ByteVector& k : r.listed) report.AddFalseNegative(k);
    report.false_negative_count += r.false_negatives - r.listed.size();
    if (r.any_counted) {
      for (const auto& [filter, n] : r.runs) totals.distinct[filter] += n;
      // The range counted its first key as new; the key before it may be the same.
      if (carried && carried_filter == r.first_filter && carried_key == r.first_key) {
        --totals.distinct[r.first_filter];
      }
      carried = true;
      carried_filter = r.last_filter;
      carried_key = std::move(r.last_key);
    }
    if (r.pass) {
      totals.pass = std::move(r.pass);
      return totals;
    }
  }
  if (!scan.blocks.index_error.ok()) {
    if (!totals.structure && scan.check_structure) totals.structure = scan.blocks.index_error;
    totals.pass = scan.blocks.index_error;
  }
  return totals;
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

FileReport VerifyTable(const std::string& path, KeyKind key_kind, const KeyStream* probes,
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
    if (tf->v117) {
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

  // Every data block checked as TableReader::Verify checks it (its checks before the data
  // blocks first), and every stored key against the filter of its block, all of them counted.
  const KeyOrder order = table.key_order();
  Status before_data;
  if (auto r = blocktable::VerifyBlock(table.index_block(), order); !r.ok()) {
    before_data = r.status();
  } else if (auto m = blocktable::VerifyBlock(table.metaindex_block(), KeyOrder::kBytewise);
             !m.ok()) {
    before_data = m.status();
  }
  std::optional<FilterBlockLayout> layout;
  std::optional<FilterBlockReader> reader;
  if (tf) {
    auto parsed = ParseFilterBlockLayout(tf->contents.bytes(), path, tf->handle.offset);
    if (parsed.ok()) {
      layout = std::move(parsed).value();
      reader.emplace(tf->contents.bytes(), tf->flavor);
    } else if (before_data.ok()) {
      before_data = parsed.status();
    }
  }
  DataBlocks blocks;
  blocks.index_error = table.ForEachDataBlock([&](ByteSpan key, const BlockHandle& handle) {
    blocks.handles.push_back(handle);
    blocks.separators.Add(key);
    return Status();
  });
  bool monotone = true;
  if (layout) {
    for (std::size_t i = 1; i < blocks.handles.size() && monotone; ++i) {
      monotone = layout->IndexFor(blocks.handles[i - 1].offset) <=
                 layout->IndexFor(blocks.handles[i].offset);
    }
  }
  in->AdviseSequential();
  const TableScan scan{table,
                       *in,
                       blocks,
                       layout ? &*layout : nullptr,
                       reader ? &*reader : nullptr,
                       before_data.ok(),
                       monotone,
                       blocktable::CurrentStreamLimits()};
  ScanTotals totals = ScanTable(scan, report);
  bool structure_failed = false;
  if (!before_data.ok()) totals.structure = before_data;
  if (totals.structure) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, *totals.structure));
    structure_failed = true;
  }
  const bool pass_ok = !totals.pass.has_value();
  if (!pass_ok && !structure_failed) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, *totals.pass));
    structure_failed = true;
  }
  report.FinishFalseNegatives("the filter of their data block");

  if (probes != nullptr) {
    const std::uint64_t before = report.false_negative_count;
    const std::uint64_t checked_before = report.keys_checked;
    KeyList copy;  // the table's batch path takes a KeyList: one chunk at a time
    const FileReport::Asked asked = report.AskKeys(*probes, [&](auto chunk, auto answers) {
      copy.Assign(chunk);
      return table.MayContainBatch(copy, answers);
    });
    if (!asked.asked.ok()) {
      if (!structure_failed) {
        report.findings.push_back(
            FindingFromStatus(Severity::kError, finding_kind::kStructure, asked.asked));
      }
    } else {
      if (!asked.read.ok()) {
        report.findings.push_back(
            FindingFromStatus(Severity::kError, finding_kind::kUnreadable, asked.read));
      }
      if (report.false_negative_count > before) {
        report.Add(Severity::kError, finding_kind::kFalseNegative,
                   std::to_string(report.false_negative_count - before) + " of " +
                       std::to_string(report.keys_checked - checked_before) +
                       " given keys answered 'definitely absent' by the table's read path");
      }
    }
  }
  if (tf && layout && pass_ok) AddFill(table, *layout, totals.distinct, report);
  return report;
}

}  // namespace bloomcodec::leveldb
