#include "leveldb/table/table_reader.h"

#include <algorithm>
#include <utility>

#include <boost/endian/conversion.hpp>

#include "blocktable/block_handle.h"
#include "blocktable/index_block.h"
#include "bloomcodec/leveldb/bloom.h"
#include "codec/byte_reader.h"
#include "leveldb/basho_bloom.h"

namespace bloomcodec::leveldb {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockContents;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::CheckHandleInFile;
using blocktable::CompareKeys;
using blocktable::DecodeFooter;
using blocktable::KeyBuffer;
using blocktable::KeyOrder;
using blocktable::ReadBlock;
using blocktable::ReadBlockHandle;
using blocktable::ReadBlockOptions;
using blocktable::TableFamily;
using blocktable::TrailerFormatOf;
using blocktable::VerifyBlock;

namespace {

constexpr std::string_view kFilterPrefix = "filter.";
constexpr std::uint8_t kTypeValue = 1;  // kValueTypeForSeek: the type a lookup key carries

std::uint64_t LoadTag(ByteSpan key) {
  std::uint64_t tag = 0;
  for (int i = 7; i >= 0; --i) tag = (tag << 8) | key[key.size() - 8 + i];
  return tag;
}

// Decodes a data-block handle stored as an index value (`value` lies inside `index`).
Result<BlockHandle> HandleInIndex(const Block& index, ByteSpan value) {
  const std::uint64_t at =
      index.contents().file_offset() + (value.data() - index.contents().bytes().data());
  ByteReader reader(value, index.source(), at);
  return ReadBlockHandle(reader, "data block handle in the index block");
}

// Would these keys set exactly the bits of Basho's bloom2 `filter`? (A pure function of its keys,
// its byte count and its k, as LevelDB's.)
bool Bloom2IsExactlyFrom(ByteSpan filter, const std::vector<ByteVector>& keys, bool strip_tag,
                         const Bloom2Build& build) {
  if (filter.size() < 2) return false;
  const auto k = static_cast<std::int8_t>(filter.back());
  if (k < 1 || k > 30) return false;
  ByteVector rebuilt(filter.size() - 1, 0);
  for (const ByteVector& stored : keys) {
    const ByteSpan key = strip_tag ? BashoUserKeyOf(stored) : ByteSpan(stored);
    Bloom2AddKey(rebuilt.data(), rebuilt.size(), k, key, build);
  }
  return std::equal(rebuilt.begin(), rebuilt.end(), filter.begin());
}

// The same under any build of Basho's LevelDB (its hashes depend on the platform).
bool Bloom2IsExactlyFromAnyBuild(ByteSpan filter, const std::vector<ByteVector>& keys,
                                 bool strip_tag) {
  if (Bloom2IsExactlyFrom(filter, keys, strip_tag, kBloom2X86_64)) return true;
  for (const Bloom2Build& build : Bloom2OtherBuilds()) {
    if (Bloom2IsExactlyFrom(filter, keys, strip_tag, build)) return true;
  }
  return false;
}

// Would these keys, hashed with `flavor`, set exactly the bits of `filter`? (A LevelDB filter is
// a pure function of its keys, its bit count and its k.) Basho's tables strip their user keys by
// type (BashoUserKeyOf).
bool FilterIsExactlyFrom(ByteSpan filter, const std::vector<ByteVector>& keys, bool strip_tag,
                         HashFlavor flavor, bool basho) {
  if (filter.size() < 2) return false;
  const std::uint32_t k = filter.back();
  if (k == 0 || k > static_cast<std::uint32_t>(kMaxProbes)) return false;
  const std::uint64_t bits = (filter.size() - 1) * std::uint64_t{8};
  ByteVector rebuilt(filter.size() - 1, 0);
  for (const ByteVector& stored : keys) {
    ByteSpan key(stored);
    if (strip_tag) key = basho ? BashoUserKeyOf(key) : UserKeyOf(key);
    std::uint32_t h = BloomHash(key, flavor);
    const std::uint32_t delta = (h >> 17) | (h << 15);
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint64_t pos = h % bits;
      rebuilt[pos / 8] |= static_cast<std::uint8_t>(1u << (pos % 8));
      h += delta;
    }
  }
  return std::equal(rebuilt.begin(), rebuilt.end(), filter.begin());
}

}  // namespace

std::uint64_t TagOf(ByteSpan internal_key) {
  return internal_key.size() >= 8 ? LoadTag(internal_key) : 0;
}

ByteSpan TableReader::UserKey(ByteSpan internal_key) const {
  return basho_ ? BashoUserKeyOf(internal_key) : UserKeyOf(internal_key);
}

ReadBlockOptions TableReader::BlockOptions() const {
  ReadBlockOptions o;
  o.trailer = TrailerFormatOf(footer_, TableFamily::kLevelDb);
  o.verify_checksum = options_.verify_checksums;
  o.max_uncompressed_size = options_.max_uncompressed_block_size;
  return o;
}

Result<TableReader> TableReader::Open(ByteSpan file, std::string source,
                                      const TableOpenOptions& options) {
  TableReader t;
  t.source_ = std::move(source);
  t.file_ = file;
  t.options_ = options;
  if (options.sequence.has_value()) {
    if (*options.sequence > kMaxSequenceNumber) {
      return Status::InvalidArgument("lookup sequence " + std::to_string(*options.sequence) +
                                     " exceeds LevelDB's maximum 2^56-1");
    }
    t.sequence_ = *options.sequence;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(t.footer_, DecodeFooter(file, t.source_, TableFamily::kLevelDb));
  BLOOMCODEC_ASSIGN_OR_RETURN(
      BlockContents index_raw,
      ReadBlock(file, t.footer_.index_handle, t.source_, t.BlockOptions(), "index block"));
  BLOOMCODEC_ASSIGN_OR_RETURN(t.index_,
                              Block::Parse(std::move(index_raw), t.source_, "index block"));
  t.has_data_ = !t.index_.entries().empty();
  BLOOMCODEC_RETURN_IF_ERROR(t.ReadMetaindex());
  BLOOMCODEC_RETURN_IF_ERROR(t.ResolveKeyKind(options.key_kind));
  if (t.key_kind_ == KeyKind::kUser) BLOOMCODEC_RETURN_IF_ERROR(t.LoadUserKeyRange());
  if (options.writer != FilterWriter::kAuto) {
    BLOOMCODEC_RETURN_IF_ERROR(t.ForceWriter(options.writer));
  } else if (t.filter_ && t.filter_->v117) {
    BLOOMCODEC_RETURN_IF_ERROR(t.DecideV117OrGoLevelDb());
  }
  return t;
}

Result<FilterWriter> ParseFilterWriter(std::string_view name) {
  if (name.empty() || name == "auto") return FilterWriter::kAuto;
  if (name == "leveldb" || name == "leveldb-1.18+") return FilterWriter::kLevelDb;
  if (name == "leveldb-1.17") return FilterWriter::kLevelDb117;
  if (name == "goleveldb") return FilterWriter::kGoLevelDb;
  return Status::InvalidArgument("--writer: expected one of " + std::string(kFilterWriterNames) +
                                 ", found '" + std::string(name) + "'");
}

Status TableReader::ForceWriter(FilterWriter writer) {
  if (!filter_) return Status();  // nothing to read differently
  if (filter_->basho) {
    // --writer names another writer than Basho's: read the filter as the name's writer would.
    filter_->basho = false;
    filter_->variant = BloomVariant::kLevelDb;
    filter_->v117 =
        filter_->metaindex_key != std::string(kFilterPrefix) + std::string(kCurrentPolicyName);
    filter_->flavor = filter_->v117 ? HashFlavor::kSignedTail : HashFlavor::kUnsignedTail;
    filter_reader_.emplace(filter_->contents.bytes(), filter_->flavor);
  }
  const bool wants_v117_name = writer != FilterWriter::kLevelDb;
  if (filter_->v117 != wants_v117_name) {
    const std::string_view name = writer == FilterWriter::kLevelDb117  ? "leveldb-1.17"
                                  : writer == FilterWriter::kGoLevelDb ? "goleveldb"
                                                                       : "leveldb-1.18+";
    return Status::InvalidArgument(
        source_ + ": --writer " + std::string(name) + ": the table's filter is " +
        filter_->metaindex_key + ", which " + std::string(name) + " neither writes nor reads (" +
        std::string(name) + " uses filter." +
        std::string(wants_v117_name ? kLegacyPolicyName : kCurrentPolicyName) + ")");
  }
  filter_->writer_forced = true;
  if (writer == FilterWriter::kGoLevelDb) {
    filter_->v117 = false;
    filter_->goleveldb = true;
    filter_->flavor = HashFlavor::kUnsignedTail;
    filter_reader_.emplace(filter_->contents.bytes(), filter_->flavor, true);  // goleveldb's
  }
  return Status();
}

std::string_view TableReader::writer() const {
  if (!filter_) return "";
  if (filter_->basho) return "basho-leveldb";
  if (filter_->goleveldb) return "goleveldb";
  if (filter_->writer_ambiguous) return "leveldb-1.17-or-goleveldb";
  return filter_->v117 ? "leveldb-1.17" : "leveldb-1.18+";
}

Status TableReader::DecideV117OrGoLevelDb() {
  // Every stored key must answer "may contain" under its writer's hash. A key whose hash differs
  // between the two (a tail byte >= 0x80) tells them apart; with none, both fit every key.
  FilterBlockReader as_signed(filter_->contents.bytes(), HashFlavor::kSignedTail);
  FilterBlockReader as_unsigned(filter_->contents.bytes(), HashFlavor::kUnsignedTail);
  std::uint64_t signed_misses = 0, unsigned_misses = 0;
  bool differs = false;
  const bool user = key_kind_ == KeyKind::kUser;
  Status s = ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle& block) {
    const ByteSpan k = user ? UserKey(key) : key;
    if (BloomHash(k, HashFlavor::kSignedTail) != BloomHash(k, HashFlavor::kUnsignedTail)) {
      differs = true;
    }
    if (!as_signed.KeyMayMatch(block.offset, k)) ++signed_misses;
    if (!as_unsigned.KeyMayMatch(block.offset, k)) ++unsigned_misses;
    return Status();
  });
  // Damage is for Verify to report; the name's writer stays.
  if (!s.ok()) return Status();
  if (unsigned_misses < signed_misses) {
    filter_->v117 = false;
    filter_->goleveldb = true;
    filter_->flavor = HashFlavor::kUnsignedTail;
    filter_reader_.emplace(filter_->contents.bytes(), filter_->flavor, true);  // goleveldb's
  } else if (!differs) {
    filter_->writer_ambiguous = true;
  }
  return Status();
}

Status TableReader::ReadMetaindex() {
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents raw, ReadBlock(file_, footer_.metaindex_handle, source_,
                                                           BlockOptions(), "metaindex block"));
  BLOOMCODEC_ASSIGN_OR_RETURN(metaindex_, Block::Parse(std::move(raw), source_, "metaindex block"));
  BlockIterator it(metaindex_, KeyOrder::kBytewise);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    MetaindexEntry e;
    e.key.assign(AsChars(it.key()));
    e.value.assign(it.value().begin(), it.value().end());
    // Inside a Snappy-compressed metaindex there is no file offset: name the block's.
    e.value_offset = metaindex_.contents().file_offset();
    if (metaindex_.contents().compression() == BlockCompression::kNone) {
      e.value_offset += it.value().data() - metaindex_.contents().bytes().data();
    }
    metaindex_entries_.push_back(std::move(e));
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  // LevelDB 1.18+ looks up exactly "filter.leveldb.BuiltinBloomFilter2"; a table written by
  // 1.17 or older only has "filter.leveldb.BuiltinBloomFilter", whose hash differs (signed tail
  // bytes on x86). Never answer one name's filter with the other name's hash.
  // Basho's LevelDB writes "stats.sst1" in every table, and reads both names (ReadBashoFilter).
  basho_ = std::any_of(metaindex_entries_.begin(), metaindex_entries_.end(),
                       [](const MetaindexEntry& e) { return e.key == kBashoStatsMetaKey; });
  const MetaindexEntry* chosen = nullptr;
  bool v117 = false;
  for (const MetaindexEntry& e : metaindex_entries_) {
    if (e.key == std::string(kFilterPrefix) + std::string(kCurrentPolicyName)) {
      chosen = &e;
      v117 = false;
      break;
    }
    if (e.key == std::string(kFilterPrefix) + std::string(kLegacyPolicyName)) {
      chosen = &e;
      v117 = true;
    }
  }
  if (chosen == nullptr) return Status();
  TableFilter f;
  f.metaindex_key = chosen->key;
  f.v117 = v117;
  f.flavor = v117 ? HashFlavor::kSignedTail : HashFlavor::kUnsignedTail;
  if (basho_) {
    // Basho's leveldb.BuiltinBloomFilter2 is its bloom2; its leveldb.BuiltinBloomFilter is
    // Google's original, which Basho still reads (signed tails, as LevelDB 1.17): neither is
    // ignored by the table's own reader.
    f.basho = true;
    f.variant = v117 ? BloomVariant::kLevelDb : BloomVariant::kBasho2;
    f.v117 = false;
    f.flavor = HashFlavor::kSignedTail;
  }
  ByteReader reader(chosen->value, source_, chosen->value_offset);
  BLOOMCODEC_ASSIGN_OR_RETURN(f.handle, ReadBlockHandle(reader, "filter block handle"));
  BLOOMCODEC_RETURN_IF_ERROR(
      CheckHandleInFile(f.handle, file_.size(), source_, chosen->value_offset, "filter block"));
  ReadBlockOptions block = BlockOptions();
  block.verify_checksum = block.verify_checksum && options_.verify_filter_checksum;
  BLOOMCODEC_ASSIGN_OR_RETURN(f.contents,
                              ReadBlock(file_, f.handle, source_, block, "filter block"));
  filter_reader_.emplace(f.contents.bytes(), f.flavor, false, f.variant);
  filter_ = std::move(f);
  return Status();
}

Status TableReader::ResolveKeyKind(KeyKind requested) {
  if (requested != KeyKind::kAuto) {
    key_kind_ = requested;
    return Status();
  }
  const auto undecidable = [this](std::string why) {
    return Status::InvalidArgument(source_ +
                                   ": cannot tell whether this table was written by a "
                                   "LevelDB database (internal keys) or by a TableBuilder (" +
                                   why + "); pass --key-kind user or --key-kind plain");
  };
  if (!has_data_) {
    // Without data blocks every probe is past the last index entry: the kind changes nothing.
    key_kind_ = KeyKind::kPlain;
    return Status();
  }
  // Keys of the data blocks served by filter 0 (at least the first block).
  std::vector<ByteVector> keys;
  bool internal_like = true, bytewise_sorted = true, internal_sorted = true;
  BlockIterator index(index_, KeyOrder::kBytewise);
  BLOOMCODEC_RETURN_IF_ERROR(index.SeekToFirst());
  const std::uint8_t base_lg = filter_reader_ ? filter_reader_->base_lg() : kFilterBaseLg;
  // Basho's databases also write its expiry types, and order under its comparator.
  const std::uint64_t max_type = basho_ ? kBashoTypeValueExplicitExpiry : 1;
  const KeyOrder internal_order = basho_ ? KeyOrder::kBashoInternal : KeyOrder::kInternal;
  for (bool first = true; index.valid(); first = false) {
    BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle handle, HandleInIndex(index_, index.value()));
    if (!first && (base_lg >= 64 || (handle.offset >> base_lg) != 0)) break;
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(handle));
    BlockIterator it(block, KeyOrder::kBytewise);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      const ByteSpan key = it.key();
      if (key.size() < 8 || (LoadTag(key) & 0xff) > max_type) internal_like = false;
      if (!keys.empty()) {
        if (CompareKeys(KeyOrder::kBytewise, keys.back(), key) >= 0) bytewise_sorted = false;
        if (CompareKeys(internal_order, keys.back(), key) >= 0) internal_sorted = false;
      }
      keys.emplace_back(key.begin(), key.end());
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    BLOOMCODEC_RETURN_IF_ERROR(index.Next());
  }
  // A database only writes internal keys (>= 8 bytes, type 0 or 1) in internal-key order, and a
  // TableBuilder with the bytewise comparator only writes bytewise-increasing keys.
  if (!internal_like || !internal_sorted) {
    key_kind_ = KeyKind::kPlain;
    return Status();
  }
  if (!bytewise_sorted) {
    key_kind_ = KeyKind::kUser;
    return Status();
  }
  if (!filter_reader_) return undecidable("no filter, and its keys fit both");
  // The filter decides: filter 0 is a pure function of the keys hashed. A database hashes the
  // user keys, a TableBuilder the whole keys; exactly one of them must rebuild it bit for bit.
  const FilterBlockReader::Choice choice = filter_reader_->FilterFor(0);
  if (choice.kind != FilterBlockReader::Choice::Kind::kFilter) {
    return undecidable("its first filter cannot be read");
  }
  // A leveldb.BuiltinBloomFilter may be LevelDB 1.17's (signed tails) or goleveldb's (unsigned).
  const auto fits = [&](bool strip_tag) {
    if (filter_->variant == BloomVariant::kBasho2) {
      return Bloom2IsExactlyFromAnyBuild(choice.filter, keys, strip_tag);
    }
    return FilterIsExactlyFrom(choice.filter, keys, strip_tag, filter_->flavor, basho_) ||
           (filter_->v117 &&
            FilterIsExactlyFrom(choice.filter, keys, strip_tag, HashFlavor::kUnsignedTail, basho_));
  };
  const bool as_user = fits(true);
  const bool as_plain = fits(false);
  if (as_user == as_plain) {
    return undecidable(as_user ? "its first filter fits both" : "its first filter fits neither");
  }
  key_kind_ = as_user ? KeyKind::kUser : KeyKind::kPlain;
  return Status();
}

Status TableReader::LoadUserKeyRange() {
  if (!has_data_) return Status();
  BlockIterator index(index_, key_order());
  BLOOMCODEC_RETURN_IF_ERROR(index.SeekToFirst());
  BlockHandle first, last;
  BLOOMCODEC_ASSIGN_OR_RETURN(first, HandleInIndex(index_, index.value()));
  last = first;
  while (index.valid()) {
    BLOOMCODEC_ASSIGN_OR_RETURN(last, HandleInIndex(index_, index.value()));
    BLOOMCODEC_RETURN_IF_ERROR(index.Next());
  }
  {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(first));
    BlockIterator it(block, key_order());
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    if (!it.valid()) return block.ErrorAt(0, "at least one entry in a data block");
    const ByteSpan user = UserKey(it.key());
    smallest_user_key_.assign(user.begin(), user.end());
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(last));
  BlockIterator it(block, key_order());
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  if (!it.valid()) return block.ErrorAt(0, "at least one entry in a data block");
  while (it.valid()) {
    const ByteSpan user = UserKey(it.key());
    largest_user_key_.assign(user.begin(), user.end());
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return Status();
}

Result<Block> TableReader::ReadDataBlock(const BlockHandle& handle) const {
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents raw,
                              ReadBlock(file_, handle, source_, BlockOptions(), "data block"));
  return Block::Parse(std::move(raw), source_, "data block");
}

// Scratch state reused across the probes of one batch: the lookup key and the index iterator's
// key buffer grow once, then no probe allocates.
class TableReader::Lookup {
 public:
  explicit Lookup(const TableReader& table)
      : table_(table), index_(table.index_, table.key_order()) {}

  Status Run(ByteSpan probe, LookupTrace& trace) {
    trace = LookupTrace{};
    if (table_.key_kind_ == KeyKind::kUser) {
      // Version::Get only asks a table whose [smallest, largest] user keys contain the key.
      if (!table_.has_data_ ||
          CompareKeys(KeyOrder::kBytewise, probe, table_.smallest_user_key_) < 0 ||
          CompareKeys(KeyOrder::kBytewise, probe, table_.largest_user_key_) > 0) {
        trace.in_range = false;
        return Status();
      }
      // DB::Get's lookup key: user key + (snapshot sequence << 8 | kValueTypeForSeek).
      std::uint8_t tag[8];
      boost::endian::store_little_u64(tag, table_.sequence_ << 8 | kTypeValue);
      lookup_key_.assign(probe.begin(), probe.end());
      lookup_key_.insert(lookup_key_.end(), tag, tag + sizeof tag);
      BLOOMCODEC_RETURN_IF_ERROR(index_.Seek(ByteSpan(lookup_key_.data(), lookup_key_.size())));
    } else {
      BLOOMCODEC_RETURN_IF_ERROR(index_.Seek(probe));
    }
    if (!index_.valid()) return Status();  // past the last index entry: not in this table
    trace.block_found = true;
    BLOOMCODEC_ASSIGN_OR_RETURN(trace.block, HandleInIndex(table_.index_, index_.value()));
    if (!table_.filter_reader_) {
      trace.answer = true;  // no filter: LevelDB reads the block; "may contain" is all we say
      return Status();
    }
    trace.filter_asked = true;
    // In a database the filter policy is wrapped by InternalFilterPolicy, which strips the tag:
    // the filter sees the user key, i.e. the probe itself.
    trace.answer = table_.FilterMayMatch(trace.block.offset, probe);
    return Status();
  }

 private:
  const TableReader& table_;
  BlockIterator index_;
  KeyBuffer lookup_key_;  // inline: no allocation per lookup
};

bool TableReader::FilterMayMatch(std::uint64_t block_offset, ByteSpan key) const {
  if (options_.bloom2_build == nullptr || filter_->variant != BloomVariant::kBasho2) {
    return filter_reader_->KeyMayMatch(block_offset, key);
  }
  const FilterBlockReader::Choice c = filter_reader_->FilterFor(block_offset);
  if (c.kind == FilterBlockReader::Choice::Kind::kFilter) {
    return Bloom2MayContain(c.filter, key, *options_.bloom2_build);
  }
  return c.kind == FilterBlockReader::Choice::Kind::kAlwaysMatch;
}

Result<LookupTrace> TableReader::Trace(ByteSpan probe) const {
  Lookup lookup(*this);
  LookupTrace trace;
  BLOOMCODEC_RETURN_IF_ERROR(lookup.Run(probe, trace));
  return trace;
}

Result<bool> TableReader::MayContain(ByteSpan probe) const {
  BLOOMCODEC_ASSIGN_OR_RETURN(LookupTrace trace, Trace(probe));
  return trace.answer;
}

Status TableReader::MayContainBatch(const KeyList& probes, std::span<std::uint8_t> answers) const {
  if (answers.size() != probes.size()) {
    return Status::InvalidArgument("MayContainBatch: answers.size() != probes.size()");
  }
  Lookup lookup(*this);
  LookupTrace trace;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    BLOOMCODEC_RETURN_IF_ERROR(lookup.Run(probes[i], trace));
    answers[i] = trace.answer ? 1 : 0;
  }
  return Status();
}

Result<BlockHandle> TableReader::DecodeIndexValue(const blocktable::IndexEntry& entry) const {
  return HandleInIndex(entry.block, entry.value);
}

Status TableReader::ForEachDataBlock(
    const std::function<Status(ByteSpan index_key, const BlockHandle& handle)>& fn) const {
  return blocktable::ForEachIndexEntry(
      index_, key_order(), blocktable::ValueEncoding::kLengthPrefixed,
      [this](const blocktable::IndexEntry& e) { return DecodeIndexValue(e); }, fn);
}

Status TableReader::ForEachEntry(
    const std::function<Status(ByteSpan key, ByteSpan value, const BlockHandle& block)>& fn) const {
  return ForEachDataBlock([&](ByteSpan, const BlockHandle& handle) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(handle));
    BlockIterator it(block, key_order());
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      BLOOMCODEC_RETURN_IF_ERROR(fn(it.key(), it.value(), handle));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    return Status();
  });
}

Result<std::uint64_t> TableReader::Verify() const {
  const KeyOrder order = key_order();
  if (auto r = VerifyBlock(index_, order); !r.ok()) return r.status();
  if (auto r = VerifyBlock(metaindex_, KeyOrder::kBytewise); !r.ok()) return r.status();
  std::optional<FilterBlockLayout> layout;
  if (filter_) {
    auto parsed =
        ParseFilterBlockLayout(filter_->contents.bytes(), source_, filter_->handle.offset);
    if (!parsed.ok()) return parsed.status();
    layout = std::move(parsed).value();
  }
  const bool user = key_kind_ == KeyKind::kUser;
  std::uint64_t entries = 0;
  ByteVector previous_last;  // last key of the previous block
  ByteVector previous_separator;
  bool first_block = true;
  BLOOMCODEC_RETURN_IF_ERROR(ForEachDataBlock([&](ByteSpan separator,
                                                  const BlockHandle& handle) -> Status {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, ReadDataBlock(handle));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, VerifyBlock(block, order));
    if (n == 0) return block.ErrorAt(0, "at least one entry in a data block");
    entries += n;
    BlockIterator it(block, order);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    if (!first_block && CompareKeys(order, previous_last, it.key()) >= 0) {
      return block.ErrorAt(0, "a first key greater than the previous block's last key");
    }
    if (!first_block && CompareKeys(order, previous_separator, it.key()) >= 0) {
      return block.ErrorAt(0, "a first key greater than the previous block's index key");
    }
    // The block's filter must exist and must answer "may contain" for each of its keys: a false
    // negative is the worst defect a filter can have.
    std::uint64_t filter_index = 0;
    if (layout) {
      filter_index = layout->IndexFor(handle.offset);
      if (filter_index >= layout->filters.size()) {
        return Status::Corrupt(source_, filter_->handle.offset + layout->array_offset,
                               "a filter for the data block at offset " +
                                   std::to_string(handle.offset) + " (filter " +
                                   std::to_string(filter_index) + ")",
                               std::to_string(layout->filters.size()) + " filters");
      }
    }
    while (it.valid()) {
      if (user && (TagOf(it.key()) & 0xff) > (basho_ ? kBashoTypeValueExplicitExpiry : 1)) {
        return block.ErrorAt(it.entry_position(),
                             basho_ ? "an internal key of type 0 to 3"
                                    : "an internal key of type 0 or 1",
                             "type " + std::to_string(TagOf(it.key()) & 0xff));
      }
      if (filter_reader_ && !FilterMayMatch(handle.offset, user ? UserKey(it.key()) : it.key())) {
        return Status::Corrupt(
            source_, filter_->handle.offset + layout->filters[filter_index].start,
            "filter " + std::to_string(filter_index) + " to answer 'may contain' for key " +
                ToHex(it.key()) + " of the data block at offset " + std::to_string(handle.offset),
            "a false negative");
      }
      previous_last.assign(it.key().begin(), it.key().end());
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    if (CompareKeys(order, previous_last, separator) > 0) {
      return block.ErrorAt(0, "a last key at most the block's index key");
    }
    previous_separator.assign(separator.begin(), separator.end());
    first_block = false;
    return Status();
  }));
  return entries;
}

}  // namespace bloomcodec::leveldb
