// LevelDB tables in the block-table verify pipeline (blocktable/verify.h): what is LevelDB's own
// is here (opening with the key kind and the filter's writer decided, TableReader::Verify's
// checks of a data block, the filter block's filters and their fill); the scan and the report
// are the pipeline's.
#include "leveldb/table/verify.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "blocktable/verify.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "leveldb/basho_bloom.h"
#include "leveldb/table/rebuild_tap.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::CompareKeys;
using blocktable::DataBlockView;
using blocktable::KeyOrder;

namespace {

// The value types of a database's keys (the tag's low byte): 0 deletion, 1 value. Nothing else
// belongs in a table.
const blocktable::KindFlags& DatabaseKinds() {
  static const blocktable::KindFlags flags = [] {
    blocktable::KindFlags f{};
    for (std::size_t type = 2; type < f.size(); ++type) f[type] = blocktable::kKindInvalid;
    return f;
  }();
  return flags;
}

// One filter's fill: bloom2 counts the bits below its modulus P (the only ones a probe reaches).
FillStatistics FilterFill(const TableFilter& tf, ByteSpan filter) {
  if (tf.variant == BloomVariant::kBasho2) {
    const Bloom2Fill f = Bloom2FillOf(filter);
    return ComputeFillStatistics(f.bits, f.bits_set, f.hash_count);
  }
  BloomFilterView view(filter, tf.flavor);
  return ComputeFillStatistics(view.bit_count(), view.bits_set(), view.hash_count());
}

// Each filter of the filter block is a bloom filter of its own, sized by LevelDB for exactly the
// keys hashed into it (`distinct[i]` for filter i), so its fill is judged against that count.
void AddFilterBlockFill(const TableFilter& tf, const FilterBlockLayout& layout,
                        const std::vector<std::uint64_t>& distinct, FileReport& report) {
  ByteSpan contents = tf.contents.bytes();
  FillReport fill;
  double weighted_fp = 0;
  double weight = 0;
  double sized = 0;
  // Per verdict kind (overfilled, undersized): how many filters, the first one and its offset.
  std::uint64_t count[2] = {0, 0};
  FillVerdict first[2];
  std::uint64_t first_offset[2] = {0, 0};
  for (std::size_t i = 0; i < layout.filters.size(); ++i) {
    const FilterRange& r = layout.filters[i];
    if (r.empty()) continue;
    const std::uint64_t n = i < distinct.size() ? distinct[i] : 0;
    const FillStatistics s = FilterFill(tf, contents.subspan(r.start, r.size()));
    fill.bits += s.bits;
    fill.bits_set += s.bits_set;
    fill.hash_count = std::max(fill.hash_count, s.hash_count);
    if (s.hash_count > 0 && s.bits > 0) fill.estimated_keys += s.estimated_keys;
    weighted_fp += static_cast<double>(n) * s.false_positive_rate;
    weight += static_cast<double>(n);
    sized += static_cast<double>(n);
    FillVerdict verdict = JudgeFill(s, static_cast<double>(n), "in its data blocks");
    if (!verdict) continue;
    const int v = verdict.kind == finding_kind::kOverfilled ? 0 : 1;
    if (count[v]++ == 0) {
      first_offset[v] = tf.handle.offset + r.start;
      verdict.reason = "filter " + std::to_string(i) + ": " + verdict.reason;
      first[v] = std::move(verdict);
    }
  }
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = weight > 0 ? weighted_fp / weight : 0;
  fill.sized_keys = sized;
  fill.sized_keys_from = "table";
  report.fill = fill;
  if (count[0] > 0) {
    report.Add(Severity::kError, finding_kind::kOverfilled,
               std::to_string(count[0]) + " filter(s) hold more bits than their keys can set; " +
                   first[0].reason + ": the filter was damaged or built for other keys",
               first_offset[0]);
  }
  if (count[1] > 0) {
    report.Add(first[1].severity, first[1].kind,
               std::to_string(count[1]) + " filter(s) saturated by their keys; " + first[1].reason,
               first_offset[1]);
  }
}

// TableReader::Open fails with InvalidArgument only when it cannot tell the key kind (no sequence
// is asked for); every damage is Corrupt.
bool KindUndecidable(const Status& s) { return s.code() == StatusCode::kInvalidArgument; }

// Opens the table for verifying. A table without a filter whose keys fit both kinds needs no
// kind for the filter check (there is none): the kind only decides the key order checked, so
// the one the table verifies under is taken (a database's first; its keys look internal).
Result<TableReader> OpenForVerify(ByteSpan file, const std::string& path, KeyKind key_kind,
                                  bool probes, FilterWriter writer,
                                  const Bloom2Build* bloom2_build) {
  TableOpenOptions options;
  options.verify_checksums = true;
  options.key_kind = key_kind;
  options.writer = writer;
  options.bloom2_build = bloom2_build;  // the probes (--keys) under the stored keys' build
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

// The filter block's filter for one range's keys: a batch per filter, every entry asked. In a
// Basho table the scan hands whole internal keys (their suffix is 8 or 16 bytes by type) and the
// user keys are cut here, into a list reused across chunks; its bloom2 filters are asked with
// the hashes of `bloom2_build` (x86-64's unless verify tries another).
class FilterBlockRangeFilter final : public blocktable::RangeFilter {
 public:
  FilterBlockRangeFilter(const FilterBlockReader& reader, bool basho_internal_keys,
                         const Bloom2Build* bloom2_build, TableHashes* tapped)
      : reader_(reader),
        basho_internal_keys_(basho_internal_keys),
        bloom2_build_(bloom2_build),
        tapped_(tapped) {}
  // The range is done: its keys' hashes go to the tap's table.
  ~FilterBlockRangeFilter() override {
    if (tapped_ != nullptr) tapped_->Add(std::move(tap_hashes_));
  }
  FilterBlockRangeFilter(const FilterBlockRangeFilter&) = delete;
  FilterBlockRangeFilter& operator=(const FilterBlockRangeFilter&) = delete;

  // A data block's keys go to the filter of its offset (LevelDB's FilterBlockReader). A tap asks
  // each new filter window apart too: its keys make one filter of the new block.
  bool StartsNewFilter(const BlockHandle& block) override {
    bool starts = false;
    if (tapped_ != nullptr && block.offset >> kFilterBaseLg != window_) {
      window_ = block.offset >> kFilterBaseLg;
      starts = true;
    }
    const FilterBlockReader::Choice choice = reader_.FilterFor(block.offset);
    if (choice.kind == current_.kind && choice.filter.data() == current_.filter.data() &&
        choice.filter.size() == current_.filter.size()) {
      return starts;
    }
    current_ = choice;
    return true;
  }

  std::size_t Ask(const blocktable::FilterChunk& chunk, std::span<std::uint8_t> answers,
                  Status&) override {
    if (tapped_ != nullptr) Tap(chunk);
    const KeyList* keys = &chunk.keys;
    if (basho_internal_keys_) {
      user_keys_.Clear();
      for (std::size_t i = 0; i < chunk.keys.size(); ++i)
        user_keys_.Add(BashoUserKeyOf(chunk.keys[i]));
      keys = &user_keys_;
    }
    if (bloom2_build_) {
      const FilterBlockReader::Choice c = reader_.FilterFor(chunk.block_offset);
      if (c.kind == FilterBlockReader::Choice::Kind::kFilter) {
        Bloom2MayContainBatch(c.filter, *keys, answers.first(keys->size()), *bloom2_build_);
        return chunk.keys.size();
      }
    }
    reader_.KeyMayMatchBatch(chunk.block_offset, *keys, answers);
    return chunk.keys.size();
  }

 private:
  const FilterBlockReader& reader_;
  bool basho_internal_keys_;
  // The chunk's keys hashed for the new filter block (a tap's table holds no Basho keys).
  void Tap(const blocktable::FilterChunk& chunk) {
    const HashFlavor flavor = tapped_->policy().flavor;
    tap_hashes_.offsets.push_back(chunk.block_offset);
    for (std::size_t i = 0; i < chunk.keys.size(); ++i) {
      tap_hashes_.hashes.push_back(BloomHash(chunk.keys[i], flavor));
    }
    tap_hashes_.ends.push_back(tap_hashes_.hashes.size());
  }

  const Bloom2Build* bloom2_build_;
  KeyList user_keys_;
  FilterBlockReader::Choice current_{FilterBlockReader::Choice::Kind::kAlwaysMatch, {}};
  // A repair's tap (rebuild_tap.h): the range's keys hashed for the new filter block, grouped
  // by the filter window they fall in.
  TableHashes* const tapped_;
  std::uint64_t window_ = UINT64_MAX;
  BlockHashes tap_hashes_;
};

// What TableReader::Verify checks, without its stop at the first false negative: every stored
// key is asked of the filter of its block, and every false negative counted (a false negative
// does not hide damage further on, nor damage the false negatives).
class TableVerify final : public blocktable::VerifyPlugin {
 public:
  TableVerify(KeyKind key_kind, bool probes, FilterWriter writer,
              const Bloom2Build& bloom2_build = kBloom2X86_64, RebuildTap* tap = nullptr)
      : key_kind_(key_kind),
        probes_(probes),
        writer_(writer),
        bloom2_build_(bloom2_build),
        tap_(tap) {}

  // The table opened holds bloom2 filters (Basho's LevelDB).
  bool bloom2() const {
    return table_ && table_->filter() && table_->filter()->variant == BloomVariant::kBasho2;
  }

  std::string_view format_name() const override { return "leveldb-table"; }

  bool Open(ByteSpan file, const std::string& path, FileReport& report) override;

  blocktable::VerifySetup setup() const override {
    blocktable::VerifySetup s;
    s.key_order = table_->key_order();
    if (table_->key_kind() == KeyKind::kUser && table_->basho()) {
      // Basho's suffix is 8 or 16 bytes by the key's type: the range filter cuts the user keys,
      // CheckValue checks the types (0 to 3). Distinct keys are then counted per version, which
      // only makes the fill judgement more lenient.
      s.check_values = true;
    } else if (table_->key_kind() == KeyKind::kUser) {
      s.keys.trailer_bytes = 8;  // a database hashes user keys (InternalFilterPolicy)
      s.keys.kind_flags = &DatabaseKinds();
    }
    s.asked = blocktable::StoredKeys::kEveryEntry;
    s.filter_groups = layout_ ? layout_->filters.size() : 0;
    s.checks_across_blocks = true;
    s.damage_ends_report = false;
    s.given_keys_own_finding = true;
    return s;
  }

  // TableReader::Verify's checks before the data blocks.
  Status CheckBeforeData() const override {
    if (auto r = blocktable::VerifyBlock(table_->index_block(), table_->key_order()); !r.ok()) {
      return r.status();
    }
    if (auto m = blocktable::VerifyBlock(table_->metaindex_block(), KeyOrder::kBytewise); !m.ok()) {
      return m.status();
    }
    return layout_error_;
  }

  blocktable::IndexLayout index_layout() const override {
    return {&table_->index_block(), table_->key_order()};
  }
  Result<BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& entry) const override {
    return table_->DecodeIndexValue(entry);
  }
  Result<Block> ReadDataBlock(const BlockHandle& handle) const override {
    Result<Block> block = table_->ReadDataBlock(handle);  // checksums verified (OpenForVerify)
    if (tapped_ && block.ok() && block->contents().compression() != BlockCompression::kNone) {
      tapped_->SawCompressed(handle.offset, block->contents().compression());
    }
    return block;
  }

  // Filter i serves the data blocks starting in [i, i + 1) << base_lg.
  blocktable::FilterGroup FilterGroupOf(const BlockHandle& handle) const override {
    if (!layout_) return {};
    const std::uint64_t i = layout_->IndexFor(handle.offset);
    return {i, i < layout_->filters.size()};
  }

  Status CheckBlockStart(const blocktable::BlockStart& start) const override;

  Status CheckBlockEnd(const DataBlockView& b, ByteSpan last_key) const override {
    if (CompareKeys(table_->key_order(), last_key, b.index_key) > 0) {
      return b.block.ErrorAt(0, "a last key at most the block's index key");
    }
    return Status();
  }

  // Basho's tables only: a key type of 0 to 3 (its expiry types included).
  Status CheckValue(const DataBlockView& b, std::size_t entry_position, ByteSpan key,
                    ByteSpan) const override {
    const std::uint8_t type = key.size() >= 8 ? key[key.size() - 8] : 0;
    if (type <= kBashoTypeValueExplicitExpiry) return Status();
    return b.block.ErrorAt(entry_position, "an internal key of type 0 to 3 (Basho's LevelDB)",
                           "type " + std::to_string(type));
  }

  Status InvalidKind(const Block& block, std::size_t entry_position,
                     std::uint8_t kind) const override {
    return block.ErrorAt(entry_position, "an internal key of type 0 or 1",
                         "type " + std::to_string(kind));
  }

  std::unique_ptr<blocktable::RangeFilter> NewRangeFilter() const override {
    if (!reader_) return nullptr;
    return std::make_unique<FilterBlockRangeFilter>(
        *reader_, table_->basho() && table_->key_kind() == KeyKind::kUser,
        bloom2() ? &bloom2_build_ : nullptr, tapped_.get());
  }

  bool ReportStoredKeys(const blocktable::ScanTotals& totals, FileReport& report) const override {
    report.keys_checked = totals.entries;
    return true;
  }
  std::string_view filter_description() const override { return "the filter of their data block"; }
  Status MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override {
    return table_->MayContainBatch(keys, answers);
  }
  void ReportFill(const blocktable::ScanTotals& totals, FileReport& report) const override {
    if (table_->filter() && layout_) {
      AddFilterBlockFill(*table_->filter(), *layout_, totals.distinct, report);
    }
    // Scanned whole and asked whole: the tap's hashes are every key's (rebuild_tap.h).
    if (tapped_ && !totals.damage && !totals.stopped && !totals.filter_error) {
      KeepRebuiltFilter(*tap_, *table_, *tapped_, totals.entries);
    }
  }

 private:
  void DescribeFilter(FileReport& report) const;

  KeyKind key_kind_;
  bool probes_;
  FilterWriter writer_;
  const Bloom2Build& bloom2_build_;
  RebuildTap* const tap_;
  std::optional<TableReader> table_;
  // The filter block's strict layout (distinct keys are counted per filter) and the reader that
  // answers for the stored keys; neither when there is no filter or its layout is damaged.
  std::optional<FilterBlockLayout> layout_;
  std::optional<FilterBlockReader> reader_;
  Status layout_error_;
  std::unique_ptr<TableHashes> tapped_;  // the tap's table, when it builds this one's filter
};

bool TableVerify::Open(ByteSpan file, const std::string& path, FileReport& report) {
  Result<TableReader> opened =
      OpenForVerify(file, path, key_kind_, probes_, writer_, &bloom2_build_);
  if (!opened.ok() && KindUndecidable(opened.status())) {
    // Not damage: the caller did not say how to read the keys (PlanVerify refuses this case
    // before any work; a direct caller gets it here, not as a structure finding).
    report.Add(Severity::kError, finding_kind::kNoKeys, opened.status().ToString());
    return false;
  }
  if (!opened.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, opened.status()));
    return false;
  }
  table_.emplace(std::move(opened).value());
  if (const std::optional<TableFilter>& tf = table_->filter()) {
    auto parsed = ParseFilterBlockLayout(tf->contents.bytes(), path, tf->handle.offset);
    if (parsed.ok()) {
      layout_ = std::move(parsed).value();
      reader_.emplace(tf->contents.bytes(), tf->flavor, false, tf->variant);
      tapped_ = TapTable(tap_, *table_);
    } else {
      layout_error_ = parsed.status();
    }
  }
  DescribeFilter(report);
  return true;
}

void TableVerify::DescribeFilter(FileReport& report) const {
  const std::optional<TableFilter>& tf = table_->filter();
  if (!tf) {
    report.Add(Severity::kWarning, finding_kind::kNoFilter,
               "no filter block: every lookup reads a data block");
    // Without a filter every probe in range is answered "may contain": a read pays fp rate 1.
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
    return;
  }
  report.version = tf->metaindex_key.substr(std::string_view("filter.").size());
  report.writer = std::string(table_->writer());
  if (!tf->v117) return;
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

// TableReader::Verify's checks of a block's start, in its order: an entry at all, the first key
// after the previous block's last key and index key, a filter for the block.
Status TableVerify::CheckBlockStart(const blocktable::BlockStart& start) const {
  const Block& block = start.block.block;
  if (!start.first_key) return block.ErrorAt(0, "at least one entry in a data block");
  const KeyOrder order = table_->key_order();
  if (start.previous_last_key) {
    if (CompareKeys(order, *start.previous_last_key, *start.first_key) >= 0) {
      return block.ErrorAt(0, "a first key greater than the previous block's last key");
    }
    if (CompareKeys(order, start.previous_index_key, *start.first_key) >= 0) {
      return block.ErrorAt(0, "a first key greater than the previous block's index key");
    }
  }
  if (layout_) {
    const std::uint64_t offset = start.block.handle.offset;
    const std::uint64_t i = layout_->IndexFor(offset);
    if (i >= layout_->filters.size()) {
      return Status::Corrupt(table_->source(),
                             table_->filter()->handle.offset + layout_->array_offset,
                             "a filter for the data block at offset " + std::to_string(offset) +
                                 " (filter " + std::to_string(i) + ")",
                             std::to_string(layout_->filters.size()) + " filters");
    }
  }
  return Status();
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
                       const std::string& group, FilterWriter writer,
                       const Bloom2Build* bloom2_build, RebuildTap* tap) {
  TableVerify plugin(key_kind, probes != nullptr, writer,
                     bloom2_build != nullptr ? *bloom2_build : kBloom2X86_64, tap);
  FileReport report = blocktable::VerifyBlockTable(path, plugin, probes, group);
  if (!plugin.bloom2() || bloom2_build != nullptr) return report;
  // Basho's bloom2 hashes depend on the build that wrote them (FORMAT.md). When x86-64's deny
  // stored keys, the build whose hashes deny the fewest is taken as the writer's: all answered,
  // a warning; still some denied, those are false negatives under that build too. The stored
  // keys alone decide (a run without the probes, when there are some).
  std::optional<FileReport> stored_only;
  if (probes != nullptr) {
    TableVerify own(key_kind, false, writer);
    stored_only = blocktable::VerifyBlockTable(path, own, nullptr, group);
  }
  const std::uint64_t x86_denied = (stored_only ? *stored_only : report).false_negative_count;
  if (x86_denied == 0) return report;
  FileReport best;
  const Bloom2Build* best_build = nullptr;
  for (const Bloom2Build& build : Bloom2OtherBuilds()) {
    TableVerify other(key_kind, false, writer, build);
    FileReport under = blocktable::VerifyBlockTable(path, other, nullptr, group);
    const std::uint64_t denied = under.false_negative_count;
    if (denied >= (best_build ? best.false_negative_count : x86_denied)) continue;
    best = std::move(under);
    best_build = &build;
    if (denied == 0) break;
  }
  if (!best_build) return report;
  const std::uint64_t best_denied = best.false_negative_count;
  if (probes != nullptr) {
    // The keys given are probed under the build the stored keys showed.
    TableVerify with_probes(key_kind, true, writer, *best_build);
    best = blocktable::VerifyBlockTable(path, with_probes, probes, group);
  }
  best.Add(Severity::kWarning, finding_kind::kUnsupported,
           "Basho bloom2 filter: under the hashes of an x86-64 build of Basho's LevelDB, which "
           "verify assumes, the filter denies " +
               std::to_string(x86_denied) + " stored key(s), under a " +
               std::string(best_build->name) + " build's " + std::to_string(best_denied) +
               ": read as that build's (" + (probes != nullptr ? "the --keys too; " : "") +
               "probe with --basho-build " + std::string(best_build->id) +
               "), which nothing in the table confirms (the writer's platform would resolve it)");
  return best;
}

}  // namespace bloomcodec::leveldb
