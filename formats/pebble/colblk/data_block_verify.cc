// VerifyDataBlock: what Pebble's writer guarantees about a data block beyond what its reader
// checks (data_block.go: DataBlockValidator; the writers of cockroachkvs.go and colblk_writer.go).
#include <algorithm>
#include <bit>
#include <string>

#include "pebble/colblk/data_block.h"

namespace bloomcodec::pebble::colblk {

namespace {

// Internal-key kinds a data block may hold (internal/base/internal.go): DEL, SET, MERGE,
// SINGLEDEL, SETWITHDEL, DELSIZED.
bool IsPointKind(std::uint8_t kind) {
  return kind == 0 || kind == 1 || kind == 2 || kind == 7 || kind == 18 || kind == 23;
}
constexpr std::uint8_t kKindMerge = 2;

std::string RowText(std::uint32_t row) { return "row " + std::to_string(row); }

Status VerifyBitmaps(const DataBlock& b) {
  const int k = b.schema().key_columns();
  BLOOMCODEC_RETURN_IF_ERROR(
      b.prefix_changed_bitmap().Verify(b.column(k + kDataColumnPrefixChanged), true));
  BLOOMCODEC_RETURN_IF_ERROR(b.external_bitmap().Verify(b.column(k + kDataColumnIsValueExternal)));
  return b.obsolete_bitmap().Verify(b.column(k + kDataColumnIsObsolete));
}

Status VerifyBundleSize(const DataBlock& b) {
  const std::uint32_t bundle = b.schema().bundle_size;
  const unsigned shift = b.prefixes().bundle_shift();
  if (shift <= kMaxBundleShift && (std::uint64_t{1} << shift) == bundle) return Status();
  const ColumnBytes c = b.column(0);
  return c.Error(c.start,
                 "bundles of " + std::to_string(bundle) + " rows (shift " +
                     std::to_string(std::countr_zero(bundle)) + "), as the key schema " +
                     b.schema().name + " writes",
                 "shift " + std::to_string(shift));
}

// crdb1's version columns, row by row, and the header bits they call for.
Status VerifyCrdb1Columns(const DataBlock& b) {
  const ColumnBytes untyped_column = b.column(3);
  std::uint8_t needed = 0;
  for (std::uint32_t row = 0; row < b.rows(); ++row) {
    const std::uint64_t wall = b.wall_times().At(row);
    const std::uint64_t logical = b.logical_times().At(row);
    const ByteSpan untyped = b.suffixes().At(row);
    if (logical > 0xffffffffu) {
      const ColumnBytes c = b.column(2);
      return c.Error(c.start, "logical times below 2^32 (" + RowText(row) + ")",
                     std::to_string(logical));
    }
    if (!untyped.empty()) {
      if (wall != 0 || logical != 0) {
        return untyped_column.Error(untyped_column.start,
                                    "no untyped version on a row with MVCC times (" + RowText(row) +
                                        "; readers ignore it)",
                                    std::to_string(untyped.size()) + " bytes");
      }
      const std::size_t n = untyped.size();
      if (n == 8 || n == 12 || n == 13 || n > 254) {
        return untyped_column.Error(untyped_column.start,
                                    "an untyped version of 1..254 bytes other than 8, 12 and 13 "
                                    "(those go to the MVCC columns) (" +
                                        RowText(row) + ")",
                                    std::to_string(n) + " bytes");
      }
      needed |= kCrdb1NonMvccSuffixes;
    } else if (wall != 0 || logical != 0) {
      needed |= kCrdb1MvccSuffixes;
    } else if ((b.schema_header() & kCrdb1MvccSuffixes) == 0) {
      // No version, or a zero timestamp (which the writer counts as MVCC).
      needed |= kCrdb1EmptySuffixes;
    }
  }
  const std::uint8_t header = b.schema_header();
  if ((header & ~7u) != 0 || (header & needed) != needed) {
    return b.layout().place().ErrorAt(0,
                                      "a crdb1 suffix-type header with the bits its rows need (" +
                                          std::to_string(needed) +
                                          ": 1 MVCC, 2 empty, 4 non-MVCC) and no others above 7",
                                      std::to_string(header));
  }
  return Status();
}

// Pebble's writer marks the prefix as unchanged when the row's prefix is a prefix of the row
// before's (which, for sorted keys, means equal); row 0's against the table's previous key.
bool PrefixUnchanged(bool crdb1, ByteSpan previous, ByteSpan prefix) {
  if (crdb1 && previous.size() != prefix.size()) return false;
  return prefix.size() <= previous.size() &&
         std::equal(prefix.begin(), prefix.end(), previous.begin());
}

class RowChecker {
 public:
  explicit RowChecker(const DataBlock& b) : b_(b), k_(b.schema().key_columns()) {}

  Status Check(const DataBlockIterator& it) {
    const std::uint32_t row = it.row();
    const ByteSpan key = it.user_key();
    const std::uint64_t trailer = it.trailer();
    if (!IsPointKind(static_cast<std::uint8_t>(trailer))) {
      const ColumnBytes trailers = b_.column(k_ + kDataColumnTrailer);
      return trailers.Error(trailers.start,
                            "point key kinds (DEL, SET, MERGE, SINGLEDEL, SETWITHDEL, DELSIZED) (" +
                                RowText(row) + ")",
                            "kind " + std::to_string(trailer & 0xff));
    }
    if (key.size() > b_.maximum_key_length()) {
      return b_.layout().place().ErrorAt(b_.schema().header_size(),
                                         "a maximum key length of at least " +
                                             std::to_string(key.size()) + " (" + RowText(row) + ")",
                                         std::to_string(b_.maximum_key_length()));
    }
    BLOOMCODEC_RETURN_IF_ERROR(CheckOrder(row, key, trailer));
    BLOOMCODEC_RETURN_IF_ERROR(CheckPrefixChanged(row, key.first(it.prefix_size())));
    BLOOMCODEC_RETURN_IF_ERROR(CheckExternalValue(row, it.value()));
    previous_.assign(key.begin(), key.end());
    previous_prefix_ = it.prefix_size();
    previous_trailer_ = trailer;
    return Status();
  }

 private:
  Status CheckOrder(std::uint32_t row, ByteSpan key, std::uint64_t trailer) const {
    if (row == 0 || b_.schema().comparer == KeyComparer::kUnknown) return Status();
    const int c = CompareUserKeys(b_.schema().comparer, key, ByteSpan(previous_));
    if (c < 0 || (c == 0 && trailer >= previous_trailer_)) {
      const ColumnBytes keys = b_.column(0);
      return keys.Error(keys.start,
                        "keys in strictly increasing order (user key ascending, then sequence "
                        "number and kind descending) (" +
                            RowText(row) + ")",
                        "a key not after the one of " + RowText(row - 1));
    }
    if (c == 0 && static_cast<std::uint8_t>(previous_trailer_) != kKindMerge &&
        !b_.is_obsolete(row)) {
      const ColumnBytes obsolete = b_.column(k_ + kDataColumnIsObsolete);
      return obsolete.Error(obsolete.start,
                            "the obsolete mark on a key shadowed by the key before (" +
                                RowText(row) + ")",
                            "no mark");
    }
    return Status();
  }

  Status CheckPrefixChanged(std::uint32_t row, ByteSpan prefix) const {
    // Row 0's bit compares its prefix with the table's previous key, the last of the block
    // before: Pebble's table writer adds a key that did not fit to the next block with the
    // comparison it made against that key (colblk_writer.go: internalAdd). Not judged here.
    if (row == 0) return Status();
    const bool crdb1 = b_.schema().kind == KeySchemaKind::kCrdb1;
    const bool unchanged =
        PrefixUnchanged(crdb1, ByteSpan(previous_).first(previous_prefix_), prefix);
    if (unchanged != b_.prefix_changed(row)) return Status();
    const ColumnBytes c = b_.column(k_ + kDataColumnPrefixChanged);
    return c.Error(c.start,
                   std::string("a prefix-changed bit of ") + (unchanged ? "0" : "1") + " (" +
                       RowText(row) + ")",
                   unchanged ? "1" : "0");
  }

  Status CheckExternalValue(std::uint32_t row, ByteSpan value) const {
    if (!b_.is_value_external(row)) return Status();
    if (!value.empty() && (value[0] & 0xc0) != 0) return Status();
    const ColumnBytes c = b_.column(k_ + kDataColumnValue);
    return c.Error(c.start,
                   "an external value starting with a value prefix that names a value block or "
                   "blob handle (" +
                       RowText(row) + ")",
                   value.empty() ? std::string("an empty value") : "prefix " + HexByte(value[0]));
  }

  const DataBlock& b_;
  int k_;
  ByteVector previous_;
  std::size_t previous_prefix_ = 0;
  std::uint64_t previous_trailer_ = 0;
};

}  // namespace

Status VerifyDataBlock(const DataBlock& block) {
  const int columns = block.schema().key_columns() +
                      (block.tiering() ? kDataColumnsWithTiering : kDataColumnsWithoutTiering);
  BLOOMCODEC_RETURN_IF_ERROR(block.layout().VerifyShape(columns));
  BLOOMCODEC_RETURN_IF_ERROR(VerifyBitmaps(block));
  BLOOMCODEC_RETURN_IF_ERROR(VerifyBundleSize(block));
  if (block.schema().kind == KeySchemaKind::kCrdb1) {
    BLOOMCODEC_RETURN_IF_ERROR(VerifyCrdb1Columns(block));
  }
  RowChecker checker(block);
  for (DataBlockIterator it(block); it.Valid(); it.Next()) {
    BLOOMCODEC_RETURN_IF_ERROR(checker.Check(it));
  }
  return Status();
}

}  // namespace bloomcodec::pebble::colblk
