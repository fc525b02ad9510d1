// inspect / dump / undump of a LevelDB table: footer, metaindex, the filter block's layout and
// statistics, and which data blocks each filter serves.
//
// A table dump carries the structural facts for reading AND the whole file as base64: a table's
// data and index blocks cannot be rebuilt from a filter, so the file itself is what makes the
// dump lossless. Undump refuses a dump whose facts no longer match its file bytes (an edited
// filter would otherwise be silently dropped); `convert --to leveldb-table --bits-per-key N` is
// the way to change a table's filter.
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "inspect_support.h"
#include "leveldb/inspect.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

using blocktable::BlockHandle;
using blocktable::Footer;
namespace {

// Structure does not depend on the key kind; only its name does. A table whose kind cannot be
// told (no internal-key tags, or only some) is read as plain and reported "undecided".
Result<TableReader> OpenForInspect(ByteSpan file, std::string_view source, std::string& kind) {
  Result<TableReader> table = TableReader::Open(file, std::string(source));
  if (table.ok()) {
    kind = table->key_kind() == KeyKind::kUser ? "user" : "plain";
    return table;
  }
  if (table.status().code() != StatusCode::kInvalidArgument) return table.status();
  TableOpenOptions plain;
  plain.key_kind = KeyKind::kPlain;
  kind = "undecided";
  return TableReader::Open(file, std::string(source), plain);
}

Document HandleDoc(const BlockHandle& h) {
  Document d;
  d["offset"] = h.offset;
  d["size"] = h.size;
  return d;
}

Document FooterDoc(const Footer& footer) {
  Document d;
  d["metaindex"] = HandleDoc(footer.metaindex_handle);
  d["index"] = HandleDoc(footer.index_handle);
  return d;
}

Document MetaindexDoc(const TableReader& table) {
  Document entries = Document::array();
  for (const MetaindexEntry& e : table.metaindex()) {
    Document d;
    d["key"] = e.key;
    d["value_hex"] = ToHex(e.value);
    entries.push_back(std::move(d));
  }
  return entries;
}

Document FilterHead(const TableReader& table) {
  const TableFilter& filter = *table.filter();
  Document d;
  d["metaindex_key"] = filter.metaindex_key;
  d["policy_name"] = filter.metaindex_key.substr(std::string_view("filter.").size());
  d["legacy_v117"] = filter.v117;
  // Who wrote the filter, decided from the table's keys as verify decides it (or --writer).
  d["writer"] = std::string(table.writer());
  if (filter.basho) {
    d["note"] = filter.variant == BloomVariant::kBasho2
                    ? "written by Basho's LevelDB (the table has stats.sst1): its "
                      "leveldb.BuiltinBloomFilter2 is Basho's bloom2, not LevelDB 1.18's filter; "
                      "probe answers as Basho's LevelDB does"
                    : "written by Basho's LevelDB (the table has stats.sst1): "
                      "leveldb.BuiltinBloomFilter with the signed-tail hash, which Basho reads";
  } else if (filter.goleveldb) {
    d["note"] =
        "written by goleveldb (leveldb.BuiltinBloomFilter with 1.18's unsigned-tail hash): "
        "probe answers as goleveldb does; LevelDB 1.18 and later ignore this filter";
  } else if (filter.v117) {
    // 1.18 renamed the policy when it fixed the hash's sign extension, so a newer LevelDB looks
    // only for ...Filter2 and reads every data block of this table.
    d["note"] =
        "written by LevelDB <= 1.17 (leveldb.BuiltinBloomFilter, x86 signed-tail hash): "
        "LevelDB 1.18 and later ignore this filter and read every data block; probe "
        "answers as LevelDB 1.17 did";
  }
  if (filter.writer_ambiguous) {
    d["writer_note"] =
        "LevelDB <= 1.17 or goleveldb: no key of the table has a tail byte >= 0x80, so the "
        "two hashes agree on every key and the keys cannot tell the writers apart (--writer "
        "decides)";
  }
  d["handle"] = HandleDoc(filter.handle);
  return d;
}

}  // namespace

Result<Document> InspectTable(ByteSpan file, std::string_view source) {
  std::string kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table, OpenForInspect(file, source, kind));
  Document doc;
  doc["format"] = "leveldb-table";
  doc["file_bytes"] = file.size();
  doc["key_kind"] = kind;
  doc["footer"] = FooterDoc(table.footer());
  doc["metaindex"] = MetaindexDoc(table);

  struct DataBlock {
    BlockHandle handle;
    std::uint64_t filter;
  };
  std::vector<DataBlock> blocks;
  const std::optional<TableFilter>& filter = table.filter();
  FilterBlockLayout layout;
  Document filter_doc = nullptr;
  if (filter) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        layout, ParseFilterBlockLayout(filter->contents.bytes(), source, filter->handle.offset));
    filter_doc = FilterHead(table);
    BLOOMCODEC_ASSIGN_OR_RETURN(Document fields,
                                InspectFilterBlockAt(filter->contents.bytes(), source,
                                                     filter->handle.offset, filter->flavor,
                                                     filter->goleveldb, filter->variant));
    filter_doc.update(fields);
  }
  BLOOMCODEC_RETURN_IF_ERROR(table.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    blocks.push_back({h, filter ? layout.IndexFor(h.offset) : 0});
    return Status();
  }));
  if (filter) {
    Document& filters = filter_doc["filters"];
    for (Document& f : filters) f["data_blocks"] = Document::array();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].filter < filters.size()) filters[blocks[i].filter]["data_blocks"].push_back(i);
    }
  }
  const std::size_t num_filters = layout.filters.size();
  doc["filter"] = std::move(filter_doc);
  doc["num_data_blocks"] = blocks.size();
  Document data = Document::array();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    Document b = HandleDoc(blocks[i].handle);
    b["index"] = i;
    if (filter) {
      // A block whose filter number lies past the array has no filter: the reader answers "may
      // match" for it (verify reports that as missing).
      b["filter"] = blocks[i].filter < num_filters ? Document(blocks[i].filter) : Document(nullptr);
    }
    data.push_back(std::move(b));
  }
  doc["data_blocks"] = std::move(data);
  return doc;
}

Result<Document> DumpTable(ByteSpan file, std::string_view source) {
  std::string kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table, OpenForInspect(file, source, kind));
  Document doc = DumpHead("leveldb-table");
  doc["file_bytes"] = file.size();
  doc["footer"] = FooterDoc(table.footer());
  doc["metaindex"] = MetaindexDoc(table);
  if (const std::optional<TableFilter>& filter = table.filter()) {
    Document f = FilterHead(table);
    f.erase("note");
    f.erase("writer");  // inspect's judgement, not the file's content
    f.erase("writer_note");
    BLOOMCODEC_ASSIGN_OR_RETURN(
        Document block,
        FilterBlockDumpFields(filter->contents.bytes(), source, filter->handle.offset));
    f["block"] = std::move(block);
    doc["filter"] = std::move(f);
  } else {
    doc["filter"] = nullptr;
  }
  doc["file_base64"] = ToBase64(file);
  return doc;
}

Result<ByteVector> UndumpTable(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "leveldb-table", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector file, DumpBase64(dump, "file_base64", source));
  // Errors inside the decoded table name the field they come from.
  BLOOMCODEC_ASSIGN_OR_RETURN(Document again,
                              DumpTable(file, std::string(source) + " (file_base64)"));
  if (again != dump) {
    return Status::Refused(
        std::string(source) +
        ": the dump's footer, metaindex or filter fields differ from its file_base64; a table "
        "cannot be rebuilt from edited fields (its blocks would have to be rewritten). To change "
        "a table's filter use: convert TABLE --to leveldb-table --bits-per-key N | --no-filter");
  }
  return file;
}

}  // namespace bloomcodec::leveldb
