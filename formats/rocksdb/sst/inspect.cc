#include "rocksdb/sst/inspect.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "inspect_support.h"
#include "rocksdb/filter_sizing.h"
#include "rocksdb/sst/sst_reader.h"
#include "sst_filter_stats.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockContents;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::CheckHandleInFile;
using blocktable::ChecksumTypeName;
using blocktable::CompressionName;
using blocktable::Footer;
using blocktable::ReadBlock;

namespace {

Document HandleDoc(const BlockHandle& h) {
  Document d;
  d["offset"] = h.offset;
  d["size"] = h.size;
  return d;
}

std::string Hex32(std::uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

std::string Hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string NameText(std::string_view name) { return PrintableName(name); }

// A property's value for JSON: its number, its text when printable ASCII, else {"hex": ...}.
Document PropertyValue(const TableProperty& p) {
  if (p.number) return *p.number;
  bool printable = true;
  for (std::uint8_t c : p.raw) printable = printable && c >= 0x20 && c < 0x7f;
  if (printable) return std::string(reinterpret_cast<const char*>(p.raw.data()), p.raw.size());
  Document d;
  d["hex"] = ToHex(p.raw);
  if (p.malformed) d["malformed"] = true;
  return d;
}

Document FooterDoc(const SstReader& sst) {
  const Footer& f = sst.footer();
  Document d;
  d["magic"] = Hex64(f.magic);
  d["legacy_magic"] = f.has_leveldb_magic();
  d["bytes"] = f.size();
  d["format_version"] = f.format_version;
  d["checksum_type"] = static_cast<int>(f.checksum);
  d["checksum"] = std::string(ChecksumTypeName(f.checksum));
  d["metaindex"] = HandleDoc(f.metaindex_handle);
  d["index"] = HandleDoc(sst.index_handle());
  if (f.context_checksums()) {
    // format_version >= 6: the footer holds the metaindex size only (the block ends where the
    // footer starts) and the index handle is the metaindex entry "rocksdb.index".
    d["index_in_metaindex"] = true;
    d["base_context_checksum"] = Hex32(f.base_context_checksum);
    d["footer_checksum"] = Hex32(f.footer_checksum);
  }
  return d;
}

std::string MetaRole(const SstReader& sst, const SstMetaindexEntry& e) {
  if (sst.filter() && e.key == sst.filter()->metaindex_key) return "filter";
  if (e.key == kPropertiesBlockName) return "properties";
  if (e.key.starts_with("filter.")) return "block-based filter of another policy (unused)";
  if (e.key.starts_with("fullfilter.") || e.key.starts_with("partitionedfilter.")) {
    return "filter of another policy (unused by RocksDB's built-in policies)";
  }
  if (e.key == blocktable::kIndexMetaBlockName) return "index";
  if (e.key == "rocksdb.range_del") return "range deletions";
  if (e.key == "rocksdb.compression_dict") return "compression dictionary";
  if (e.key.starts_with("rocksdb.hashindex.")) return "hash index metadata";
  return "other";
}

Document MetaindexDoc(const SstReader& sst) {
  Document entries = Document::array();
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    Document d;
    d["key"] = NameText(e.key);
    d["value_hex"] = ToHex(e.value);
    d["handle"] = e.handle ? HandleDoc(*e.handle) : Document(nullptr);
    d["role"] = MetaRole(sst, e);
    entries.push_back(std::move(d));
  }
  return entries;
}

Document PropertiesDoc(const SstReader& sst) {
  if (!sst.properties()) return nullptr;
  Document d = Document::object();
  for (const TableProperty& p : sst.properties()->entries) d[NameText(p.name)] = PropertyValue(p);
  return d;
}

// The compression named in a block's trailer; the handle comes from the file, so it is checked
// against the file first.
Result<std::string> BlockCompressionName(const SstReader& sst, const BlockHandle& h,
                                         std::string_view what) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckHandleInFile(h, sst.file().size(), sst.source(), what));
  const auto type = static_cast<BlockCompression>(sst.file()[h.offset + h.size]);
  return std::string(CompressionName(type));
}

// Which optimize_filters_for_memory a FastLocalBloom full filter of `entries` entries was built
// with, when its probe count tells (FORMAT.md, "optimize_filters_for_memory"): "off" when only a
// whole bits-per-key of this size gives its probe count, "on" when only the probe count of its
// rounded size does, else "undetermined" (both agree, or neither: a fractional bits-per-key, or
// a size an allocator chose).
std::string OptimizeForMemoryOf(const FullFilterReader& r, std::uint64_t entries) {
  if (r.kind() != FullFilterKind::kFastLocalBloom || entries == 0) return "undetermined";
  const std::uint64_t payload = r.payload().size();
  const std::uint64_t on_millibits = payload * 8000 / entries;
  const bool on = on_millibits <= 0x7fffffff &&
                  static_cast<std::uint32_t>(FastLocalProbesFor(static_cast<int>(on_millibits))) ==
                      r.num_probes();
  bool off = false;
  bool sized = false;
  for (int bits = 1; bits < 100; ++bits) {
    Result<FullFilterSize> s = SizeFullFilter(FilterEncoding::kFastLocalBloom, bits, entries);
    if (!s.ok() || s->filter_bytes != payload + 5) continue;
    sized = true;
    off |= s->num_probes == r.num_probes();
  }
  if (sized && on && !off) return "on";
  if (off && !on) return "off";
  return "undetermined";
}

Result<Document> FilterDoc(const SstReader& sst) {
  if (!sst.filter()) return Document(nullptr);
  const SstFilterInfo& f = *sst.filter();
  Document d;
  d["metaindex_key"] = f.metaindex_key;
  d["placement"] = f.placement == FilterPlacement::kFull          ? "full"
                   : f.placement == FilterPlacement::kPartitioned ? "partitioned"
                                                                  : "block-based";
  if (sst.properties()) {
    if (auto policy = sst.properties()->String("rocksdb.filter.policy")) {
      d["policy"] = NameText(*policy);
    }
  }
  d["whole_key_filtering"] = sst.whole_key_filtering();
  d["handle"] = HandleDoc(f.handle);
  if (f.placement == FilterPlacement::kBlockBased) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        leveldb::FilterBlockLayout layout,
        leveldb::ParseFilterBlockLayout(f.contents.bytes(), sst.source(), f.handle.offset));
    Document b;
    b["array_offset"] = layout.array_offset;
    b["base_lg"] = layout.base_lg;
    b["num_filters"] = layout.filters.size();
    b["num_empty"] = layout.num_empty();
    b["hash"] = "RocksDB BloomHash (LevelDB's hash, sign-extended tail bytes)";
    d["block_based"] = std::move(b);
  } else if (f.placement == FilterPlacement::kFull) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        FullFilterReader r, FullFilterReader::Parse(f.contents.bytes(), sst.source(), f.family));
    d["filter"] = r.Describe();
    if (sst.properties()) {
      if (auto n = sst.properties()->Number("rocksdb.num.filter_entries")) {
        d["optimize_filters_for_memory"] = OptimizeForMemoryOf(r, *n);
      }
    }
  } else {
    Document parts = Document::array();
    BLOOMCODEC_ASSIGN_OR_RETURN(Block index,
                                Block::Parse(f.contents, sst.source(), "filter partition index",
                                             BlockFooterLayout::kRocksDb));
    BLOOMCODEC_RETURN_IF_ERROR(
        sst.ForEachIndexEntry(index, [&](ByteSpan key, const BlockHandle& h) -> Status {
          BLOOMCODEC_ASSIGN_OR_RETURN(
              BlockContents c,
              ReadBlock(sst.file(), h, sst.source(), sst.BlockOptions(), "filter partition"));
          BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader r,
                                      FullFilterReader::Parse(c.bytes(), sst.source(), f.family));
          Document p = HandleDoc(h);
          p["index_key_hex"] = ToHex(key);
          p["filter"] = r.Describe();
          parts.push_back(std::move(p));
          return Status();
        }));
    d["partitions"] = std::move(parts);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(SstFilterStats stats, ComputeSstFilterStats(sst));
  Document s;
  s["filters"] = stats.filters;
  s["bits"] = stats.bits;
  s["bits_set"] = stats.bits_set;
  s["fill_ratio"] =
      JsonNumber(stats.bits > 0 ? static_cast<double>(stats.bits_set) / stats.bits : 0.0);
  s["estimated_false_positive_rate"] = JsonNumber(stats.fp_rate);
  s["fp_rate_from"] =
      stats.measured_with > 0
          ? "measured with " + std::to_string(stats.measured_with) + " synthetic absent keys"
          : std::string("fill ^ num_probes");
  d["statistics"] = std::move(s);
  return d;
}

Result<Document> IndexDoc(const SstReader& sst) {
  Document d;
  d["type"] = std::string(IndexTypeName(sst.index_type()));
  d["key_is_user_key"] = sst.index_key_is_user_key();
  d["value_is_delta_encoded"] = sst.index_value_is_delta_encoded();
  d["handle"] = HandleDoc(sst.index_handle());
  BLOOMCODEC_ASSIGN_OR_RETURN(d["compression"],
                              BlockCompressionName(sst, sst.index_handle(), "index block"));
  d["restarts"] = sst.index_block().num_restarts();
  if (sst.index_type() == IndexType::kTwoLevelIndexSearch) {
    Document parts = Document::array();
    BLOOMCODEC_RETURN_IF_ERROR(
        sst.ForEachIndexPartition([&](ByteSpan, const BlockHandle& h) -> Status {
          parts.push_back(HandleDoc(h));
          return Status();
        }));
    d["partitions"] = std::move(parts);
  }
  return d;
}

Result<Document> DataBlocksDoc(const SstReader& sst, std::size_t& count) {
  Document data = Document::array();
  count = 0;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachDataBlock([&](ByteSpan key, const BlockHandle& h) {
    Document b = HandleDoc(h);
    b["index"] = count++;
    BLOOMCODEC_ASSIGN_OR_RETURN(b["compression"], BlockCompressionName(sst, h, "data block"));
    b["index_key_hex"] = ToHex(key);
    data.push_back(std::move(b));
    return Status();
  }));
  return data;
}

// The range deletions: their count, and the first kMaxListed of them (a table may hold
// millions; the count says how many were left out).
constexpr std::size_t kMaxListed = 100;

Result<Document> RangeDeletionsDoc(const SstReader& sst) {
  Document list = Document::array();
  std::uint64_t count = 0;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachRangeDeletion([&](ByteSpan start, ByteSpan end) {
    if (count++ >= kMaxListed) return Status();
    std::uint64_t tag = 0;
    for (int i = 7; i >= 0; --i) tag = (tag << 8) | start[start.size() - 8 + i];
    Document d;
    d["start_hex"] = ToHex(UserKeyOf(start));
    d["end_hex"] = ToHex(end);
    d["sequence"] = tag >> 8;
    d["type"] = tag & 0xff;
    list.push_back(std::move(d));
    return Status();
  }));
  Document d;
  d["count"] = count;
  d["listed"] = std::move(list);
  return d;
}

}  // namespace

Result<Document> InspectSst(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(file, std::string(source)));
  Document doc;
  doc["format"] = "rocksdb-sst";
  doc["file_bytes"] = file.size();
  doc["footer"] = FooterDoc(sst);
  doc["metaindex"] = MetaindexDoc(sst);
  doc["properties"] = PropertiesDoc(sst);
  if (sst.properties()) {
    if (auto c = sst.properties()->String("rocksdb.compression")) doc["compression"] = NameText(*c);
  }
  // The rocksdb.compression_dict block's size (0: none); data blocks decompress with it.
  doc["compression_dictionary_bytes"] = sst.compression_dictionary().size();
  BLOOMCODEC_ASSIGN_OR_RETURN(doc["filter"], FilterDoc(sst));
  BLOOMCODEC_ASSIGN_OR_RETURN(doc["index"], IndexDoc(sst));
  std::size_t blocks = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(Document data, DataBlocksDoc(sst, blocks));
  doc["num_data_blocks"] = blocks;
  doc["data_blocks"] = std::move(data);
  BLOOMCODEC_ASSIGN_OR_RETURN(doc["range_deletions"], RangeDeletionsDoc(sst));
  return doc;
}

Result<Document> DumpSst(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(file, std::string(source)));
  Document doc = DumpHead("rocksdb-sst");
  doc["file_bytes"] = file.size();
  doc["footer"] = FooterDoc(sst);
  doc["metaindex"] = MetaindexDoc(sst);
  if (sst.filter()) {
    Document f;
    f["metaindex_key"] = sst.filter()->metaindex_key;
    f["handle"] = HandleDoc(sst.filter()->handle);
    f["block_base64"] = ToBase64(sst.filter()->contents.bytes());
    doc["filter"] = std::move(f);
  } else {
    doc["filter"] = nullptr;
  }
  doc["file_base64"] = ToBase64(file);
  return doc;
}

Result<ByteVector> UndumpSst(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "rocksdb-sst", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector file, DumpBase64(dump, "file_base64", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(Document again,
                              DumpSst(file, std::string(source) + " (file_base64)"));
  if (again != dump) {
    return Status::Refused(
        std::string(source) +
        ": the dump's footer, metaindex or filter fields differ from its file_base64; an SST "
        "cannot be rebuilt from edited fields (its blocks and checksums would change)");
  }
  return file;
}

}  // namespace bloomcodec::rocksdb
