// inspect of a Pebble table (row-based or columnar): what its footer, metaindex and properties
// say, its key schema (columnar), its index shape, and its filter (inspected as pebble-bloom / pebble-binaryfuse inspect it).
#include "pebble/table/inspect.h"

#include <string>

#include "inspect_support.h"
#include "pebble/inspect.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

namespace {

Document HandleDoc(const blocktable::BlockHandle& h) {
  Document d;
  d["offset"] = h.offset;
  d["size"] = h.size;
  return d;
}

Document PropertiesDoc(const PebbleTable& t) {
  Document d;
  for (const rocksdb::TableProperty& p : t.properties().entries) {
    const std::string name = rocksdb::PrintableName(p.name);
    if (std::optional<std::uint64_t> n = p.number ? p.number : t.Number(p.name);
        n && !p.name.starts_with("rocksdb.comparator") && p.name != "rocksdb.compression" &&
        p.name != "rocksdb.merge.operator" && p.name != "rocksdb.filter.policy" &&
        p.name != "rocksdb.property.collectors") {
      d[name] = *n;
    } else {
      d[name] = rocksdb::PrintableName(
          std::string_view(reinterpret_cast<const char*>(p.raw.data()), p.raw.size()));
    }
  }
  return d;
}

}  // namespace

Result<Document> InspectPebbleTable(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(file, std::string(source)));
  Document d;
  d["format"] = std::string(kTableFormatName);
  d["table_format"] = PebbleFormatName(t.version());
  d["file_bytes"] = std::uint64_t{file.size()};
  d["checksum"] = std::string(blocktable::ChecksumTypeName(t.footer().checksum));
  d["metaindex_handle"] = HandleDoc(t.footer().metaindex_handle);
  d["index_handle"] = HandleDoc(t.footer().index_handle);
  d["index_levels"] = std::uint64_t{t.two_level_index() ? 2u : 1u};
  if (t.columnar()) d["key_schema"] = t.key_schema().name;
  if (t.version() >= kAttributesFormat) d["attributes"] = std::uint64_t{t.attributes()};
  Document meta = Document::array();
  for (const auto& e : t.metaindex()) {
    Document m;
    m["name"] = rocksdb::PrintableName(e.key);
    m["block"] = HandleDoc(*e.handle);
    meta.push_back(std::move(m));
  }
  d["metaindex"] = std::move(meta);
  d["properties"] = PropertiesDoc(t);
  const PebbleFilter& f = t.filter();
  if (f.kind == PebbleFilterKind::kNone) {
    d["filter"] = nullptr;
  } else {
    const ByteSpan bytes = file.subspan(f.handle.offset, f.handle.size);
    Result<Document> filter = f.kind == PebbleFilterKind::kBloom ? InspectBloom(bytes, source)
                                                                 : InspectBinaryFuse(bytes, source);
    BLOOMCODEC_RETURN_IF_ERROR(filter.status());
    Document fd = std::move(filter).value();
    fd["block"] = HandleDoc(f.handle);
    d["filter"] = std::move(fd);
  }
  return d;
}

Result<Document> DumpPebbleTable(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(file, std::string(source)));
  Document doc = DumpHead(kTableFormatName);
  doc["file_bytes"] = std::uint64_t{file.size()};
  Document footer;
  footer["table_format"] = PebbleFormatName(t.version());
  footer["checksum"] = std::string(blocktable::ChecksumTypeName(t.footer().checksum));
  footer["metaindex"] = HandleDoc(t.footer().metaindex_handle);
  footer["index"] = HandleDoc(t.footer().index_handle);
  if (t.version() >= kAttributesFormat) footer["attributes"] = std::uint64_t{t.attributes()};
  doc["footer"] = std::move(footer);
  Document meta = Document::array();
  for (const auto& e : t.metaindex()) {
    Document m;
    m["name"] = rocksdb::PrintableName(e.key);
    m["handle"] = HandleDoc(*e.handle);
    meta.push_back(std::move(m));
  }
  doc["metaindex"] = std::move(meta);
  const PebbleFilter& f = t.filter();
  if (f.kind == PebbleFilterKind::kNone) {
    doc["filter"] = nullptr;
  } else {
    Document fd;
    fd["metaindex_key"] = std::string(
        f.kind == PebbleFilterKind::kBloom ? kBloomFilterBlockName : kBinaryFuseFilterBlockName);
    fd["handle"] = HandleDoc(f.handle);
    fd["block_base64"] = ToBase64(file.subspan(f.handle.offset, f.handle.size));
    doc["filter"] = std::move(fd);
  }
  doc["file_base64"] = ToBase64(file);
  return doc;
}

Result<ByteVector> UndumpPebbleTable(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, kTableFormatName, source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector file, DumpBase64(dump, "file_base64", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(Document again,
                              DumpPebbleTable(file, std::string(source) + " (file_base64)"));
  if (again != dump) {
    return Status::Refused(std::string(source) +
                           ": the dump's footer, metaindex or filter fields differ from its "
                           "file_base64; a Pebble table cannot be rebuilt from edited fields (its "
                           "blocks and checksums would change)");
  }
  return file;
}

}  // namespace bloomcodec::pebble
