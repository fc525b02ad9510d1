// inspect of a Pebble table (row-based or columnar): what its footer, metaindex and properties
// say, its key schema (columnar), its index shape, and its filter (inspected as pebble-bloom / pebble-binaryfuse inspect it).
#include "pebble/table/inspect.h"

#include <string>

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

}  // namespace bloomcodec::pebble
