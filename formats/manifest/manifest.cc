// CURRENT, MANIFEST log records, version edits and their replay (see manifest.h).
#include "manifest/manifest.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "blocktable/crc32c.h"
#include "bloomcodec/format.h"
#include "bloomcodec/input_file.h"
#include "codec/byte_reader.h"

namespace bloomcodec::manifest {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kKind = "manifest";

// Record types of the log format.
enum : std::uint8_t {
  kZeroType = 0,
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
  kRecyclableFullType = 5,
  kRecyclableFirstType = 6,
  kRecyclableMiddleType = 7,
  kRecyclableLastType = 8,
};

// Version edit tags.
enum : std::uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 9,
  kMinLogNumberToKeep = 10,
  kNewFile2 = 100,
  kNewFile3 = 102,
  kNewFile4 = 103,
  kColumnFamily = 200,
  kColumnFamilyAdd = 201,
  kColumnFamilyDrop = 202,
  kMaxColumnFamily = 203,
  kInAtomicGroup = 300,
  kBlobFileAddition = 400,
  kBlobFileGarbage = 401,
  kTagSafeIgnoreMask = 1u << 13,
};

// Custom fields of RocksDB's new-file-4 records.
enum : std::uint32_t {
  kCustomTerminate = 1,
  kCustomPathId = 65,
  kCustomNonSafeIgnoreMask = 1u << 6,
};

std::string Hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

Finding MakeFinding(Severity severity, std::string message, std::optional<std::uint64_t> at) {
  Finding f;
  f.severity = severity;
  f.kind = std::string(kKind);
  f.message = std::move(message);
  f.offset = at;
  return f;
}

bool IsRecyclable(std::uint8_t type) {
  return type >= kRecyclableFullType && type <= kRecyclableLastType;
}

}  // namespace

std::uint64_t LogRecord::FileOffset(std::size_t position) const {
  std::uint64_t at = offset;
  for (const auto& [start, file_at] : pieces) {
    if (start > position) break;
    at = file_at + (position - start);
  }
  return at;
}

LogReadResult ReadLogRecords(ByteSpan file, Flavor flavor) {
  LogReadResult out;
  LogRecord pending;
  bool in_record = false;
  std::size_t pos = 0;
  auto error = [&](std::uint64_t at, std::string message) {
    out.findings.push_back(MakeFinding(Severity::kError, std::move(message), at));
    out.damaged = true;
  };
  while (pos < file.size()) {
    const std::size_t block_left = kBlockSize - pos % kBlockSize;
    if (block_left < kHeaderSize) {
      // The writer pads a block tail too short for a header with zeros.
      pos += block_left;
      continue;
    }
    const std::size_t available = std::min(block_left, file.size() - pos);
    if (available < kHeaderSize) {
      out.findings.push_back(MakeFinding(
          Severity::kWarning,
          "the last record header is cut short (" + std::to_string(available) +
              " of 7 bytes) at the end of the file; LevelDB and RocksDB drop it (a writer that "
              "stopped mid-write)",
          pos));
      return out;
    }
    const std::uint8_t* h = file.data() + pos;
    const std::uint32_t masked = static_cast<std::uint32_t>(h[0]) | (h[1] << 8) | (h[2] << 16) |
                                 (static_cast<std::uint32_t>(h[3]) << 24);
    const std::size_t length =
        static_cast<std::size_t>(h[4]) | (static_cast<std::size_t>(h[5]) << 8);
    const std::uint8_t type = h[6];
    if (type == kZeroType && length == 0 && masked == 0) {
      // Preallocated (mmap) space: the rest of the block is empty; the originals skip it.
      pos += block_left;
      continue;
    }
    const bool recyclable = IsRecyclable(type);
    if (recyclable && flavor == Flavor::kLevelDb) {
      error(pos, "record type " + std::to_string(type) +
                     " is RocksDB's recyclable type; LevelDB knows types 1 to 4");
      return out;
    }
    if (type == kZeroType || type > kRecyclableLastType) {
      error(pos, "record type " + std::to_string(type) + " is unknown (expected 1 to " +
                     (flavor == Flavor::kLevelDb ? "4" : "8") + ")");
      return out;
    }
    const std::size_t header = recyclable ? kRecyclableHeaderSize : kHeaderSize;
    if (available < header || header + length > available) {
      if (pos + std::min(block_left, header + length) > file.size()) {
        out.findings.push_back(MakeFinding(
            Severity::kWarning,
            "the last record is cut short at the end of the file (" +
                std::to_string(file.size() - pos) + " bytes of a " +
                std::to_string(header + length) +
                "-byte fragment); LevelDB and RocksDB drop it (a writer that stopped mid-write)",
            pos));
        return out;
      }
      error(pos + 4, "a fragment length of at most " + std::to_string(available - header) +
                         " (the rest of its 32 KiB block), found " + std::to_string(length));
      return out;
    }
    const std::uint32_t expected = blocktable::UnmaskCrc(masked);
    const std::uint32_t actual =
        blocktable::Crc32c(ByteSpan(h + 6, header - 6 + length));  // type [, log number], data
    if (expected != actual) {
      error(pos, "record checksum (masked crc32c) " + Hex(masked) + " does not match its bytes (" +
                     Hex(blocktable::MaskCrc(actual)) + ")");
      return out;
    }
    const ByteSpan data(h + header, length);
    const std::uint64_t data_at = pos + header;
    const std::uint8_t base = recyclable ? type - 4 : type;
    switch (base) {
      case kFullType:
      case kFirstType:
        if (in_record) {
          error(pos, "a record starts (type " + std::to_string(type) + ") before the one at byte " +
                         std::to_string(pending.offset) + " ended");
          return out;
        }
        pending = LogRecord{};
        pending.offset = pos;
        pending.pieces.push_back({0, data_at});
        pending.payload.assign(data.begin(), data.end());
        if (base == kFullType) {
          out.records.push_back(std::move(pending));
        } else {
          in_record = true;
        }
        break;
      case kMiddleType:
      case kLastType:
        if (!in_record) {
          error(pos, "a fragment of type " + std::to_string(type) +
                         " (middle or last) with no first fragment before it");
          return out;
        }
        pending.pieces.push_back({pending.payload.size(), data_at});
        pending.payload.insert(pending.payload.end(), data.begin(), data.end());
        if (base == kLastType) {
          in_record = false;
          out.records.push_back(std::move(pending));
        }
        break;
    }
    pos += header + length;
  }
  if (in_record) {
    out.findings.push_back(MakeFinding(
        Severity::kWarning,
        "the last record (from byte " + std::to_string(pending.offset) +
            ") has no last fragment; LevelDB and RocksDB drop it (a writer that stopped "
            "mid-write)",
        pending.offset));
  }
  return out;
}

Status ApplyEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                 Manifest& manifest, ReplayState& state, std::vector<Finding>& notes) {
  const ByteSpan edit(record.payload.data(), record.payload.size());
  ByteReader r(edit, source, 0);
  auto fail = [&](std::size_t at, std::string what) {
    return Status::Corrupt(std::string(source), record.FileOffset(at), std::move(what));
  };
  auto lp = [&](std::string_view what) -> Result<ByteSpan> {
    const std::size_t at = r.position();
    Result<std::uint32_t> n = r.ReadVarint32(what);
    if (!n.ok()) return fail(at, std::string(what) + " (a varint32 length)");
    if (*n > r.remaining()) {
      return fail(at, std::string(what) + " of " + std::to_string(*n) + " bytes within the edit (" +
                          std::to_string(r.remaining()) + " left)");
    }
    return r.ReadBytes(*n, what);
  };
  auto v64 = [&](std::string_view what) -> Result<std::uint64_t> {
    const std::size_t at = r.position();
    Result<std::uint64_t> v = r.ReadVarint64(what);
    if (!v.ok()) return fail(at, std::string(what) + " (a varint64)");
    return v;
  };
  auto v32 = [&](std::string_view what) -> Result<std::uint32_t> {
    const std::size_t at = r.position();
    Result<std::uint32_t> v = r.ReadVarint32(what);
    if (!v.ok()) return fail(at, std::string(what) + " (a varint32)");
    return v;
  };
  const int max_levels = flavor == Flavor::kLevelDb ? kLevelDbLevels : kMaxLevels;
  auto level = [&](std::string_view what) -> Result<int> {
    const std::size_t at = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t v, v32(what));
    if (v >= static_cast<std::uint32_t>(max_levels)) {
      return fail(at, std::string(what) + " below " + std::to_string(max_levels) + ", found " +
                          std::to_string(v));
    }
    return static_cast<int>(v);
  };
  auto internal_key = [&](std::string_view what) -> Result<ByteVector> {
    const std::size_t at = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan k, lp(what));
    if (k.size() < 8) {
      return fail(at, std::string(what) + " of at least 8 bytes (an internal key), found " +
                          std::to_string(k.size()));
    }
    return ByteVector(k.begin(), k.end());
  };

  std::uint32_t cf = 0;
  std::optional<std::string> cf_add;
  bool cf_drop = false;
  std::vector<std::pair<int, std::uint64_t>> deleted;
  std::vector<TableMeta> added;
  const bool rocks = flavor == Flavor::kRocksDb;
  while (!r.at_end()) {
    const std::size_t tag_at = r.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t tag, v32("a version edit tag"));
    switch (tag) {
      case kComparator: {
        BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, lp("the comparator name"));
        manifest.comparator = std::string(name.begin(), name.end());
        break;
      }
      case kLogNumber: {
        BLOOMCODEC_ASSIGN_OR_RETURN(manifest.log_number, v64("the log number"));
        break;
      }
      case kNextFileNumber: {
        BLOOMCODEC_ASSIGN_OR_RETURN(manifest.next_file, v64("the next file number"));
        break;
      }
      case kLastSequence: {
        BLOOMCODEC_ASSIGN_OR_RETURN(manifest.last_sequence, v64("the last sequence number"));
        break;
      }
      case kPrevLogNumber: {
        BLOOMCODEC_ASSIGN_OR_RETURN(manifest.prev_log_number, v64("the previous log number"));
        break;
      }
      case kCompactPointer: {
        BLOOMCODEC_RETURN_IF_ERROR(level("a compact pointer's level").status());
        BLOOMCODEC_RETURN_IF_ERROR(internal_key("a compact pointer's key").status());
        break;
      }
      case kDeletedFile: {
        BLOOMCODEC_ASSIGN_OR_RETURN(int l, level("a deleted file's level"));
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, v64("a deleted file's number"));
        deleted.push_back({l, n});
        break;
      }
      case kNewFile:
      case kNewFile2:
      case kNewFile3:
      case kNewFile4: {
        if (tag != kNewFile && !rocks) {
          return fail(tag_at, "a LevelDB version edit tag (1 to 9), found " + std::to_string(tag));
        }
        TableMeta t;
        BLOOMCODEC_ASSIGN_OR_RETURN(t.level, level("a new file's level"));
        BLOOMCODEC_ASSIGN_OR_RETURN(t.number, v64("a new file's number"));
        if (tag == kNewFile3) {
          BLOOMCODEC_ASSIGN_OR_RETURN(t.path_id, v32("a new file's path id"));
        }
        BLOOMCODEC_ASSIGN_OR_RETURN(t.size, v64("a new file's size"));
        BLOOMCODEC_ASSIGN_OR_RETURN(t.smallest, internal_key("a new file's smallest key"));
        BLOOMCODEC_ASSIGN_OR_RETURN(t.largest, internal_key("a new file's largest key"));
        if (tag != kNewFile) {
          BLOOMCODEC_RETURN_IF_ERROR(v64("a new file's smallest sequence number").status());
          BLOOMCODEC_RETURN_IF_ERROR(v64("a new file's largest sequence number").status());
        }
        if (tag == kNewFile4) {
          for (;;) {
            const std::size_t field_at = r.position();
            BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t custom, v32("a new file's custom field tag"));
            if (custom == kCustomTerminate) break;
            BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan field, lp("a new file's custom field"));
            if (custom == kCustomPathId) {
              if (field.size() != 1) {
                return fail(field_at,
                            "a path id field of 1 byte, found " + std::to_string(field.size()));
              }
              t.path_id = field[0];
            } else if ((custom & kCustomNonSafeIgnoreMask) != 0) {
              return fail(field_at, "a new-file custom field RocksDB may ignore (tag " +
                                        std::to_string(custom) +
                                        " is marked as one a reader must understand)");
            }
          }
        }
        added.push_back(std::move(t));
        break;
      }
      case kMinLogNumberToKeep:
      case kColumnFamily:
      case kColumnFamilyAdd:
      case kColumnFamilyDrop:
      case kMaxColumnFamily:
      case kInAtomicGroup:
      case kBlobFileAddition:
      case kBlobFileGarbage: {
        if (!rocks) {
          return fail(tag_at, "a LevelDB version edit tag (1 to 9), found " + std::to_string(tag));
        }
        if (tag == kMinLogNumberToKeep) {
          BLOOMCODEC_RETURN_IF_ERROR(v64("the min log number to keep").status());
        } else if (tag == kColumnFamily) {
          BLOOMCODEC_ASSIGN_OR_RETURN(cf, v32("a column family id"));
        } else if (tag == kColumnFamilyAdd) {
          BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, lp("a column family name"));
          cf_add = std::string(name.begin(), name.end());
        } else if (tag == kColumnFamilyDrop) {
          cf_drop = true;
        } else if (tag == kMaxColumnFamily) {
          BLOOMCODEC_RETURN_IF_ERROR(v32("the max column family").status());
        } else if (tag == kInAtomicGroup) {
          BLOOMCODEC_ASSIGN_OR_RETURN(state.atomic_remaining, v32("an atomic group's count"));
        } else {
          // Blob file records: not about tables.
          BLOOMCODEC_RETURN_IF_ERROR(lp("a blob file record").status());
        }
        break;
      }
      default:
        if (rocks && (tag & kTagSafeIgnoreMask) != 0) {
          // A field a reader may skip (db id, WAL additions, ...): length-prefixed.
          BLOOMCODEC_RETURN_IF_ERROR(lp("an ignorable field").status());
          break;
        }
        return fail(tag_at, std::string("a known version edit tag (") +
                                (rocks ? "RocksDB" : "LevelDB: 1 to 9") + "), found " +
                                std::to_string(tag));
    }
  }
  ++manifest.records;
  if (cf_add) {
    if (state.names.count(cf) && cf != 0) {
      notes.push_back(MakeFinding(Severity::kWarning,
                                  "column family " + std::to_string(cf) + " is added twice",
                                  record.offset));
    }
    state.names[cf] = *cf_add;
    state.tables[cf];
  }
  if (cf_drop) {
    state.names.erase(cf);
    state.tables.erase(cf);
    return Status();
  }
  if (!state.names.count(cf)) {
    notes.push_back(MakeFinding(Severity::kWarning,
                                "an edit for column family " + std::to_string(cf) +
                                    ", which is not (or no longer) in the database; ignored",
                                record.offset));
    return Status();
  }
  auto& tables = state.tables[cf];
  for (const auto& [l, n] : deleted) {
    if (tables.erase({l, n}) == 0 && rocks) {
      notes.push_back(MakeFinding(Severity::kWarning,
                                  "an edit deletes table " + std::to_string(n) + " from level " +
                                      std::to_string(l) + ", which does not hold it",
                                  record.offset));
    }
  }
  for (TableMeta& t : added) {
    const auto key = std::make_pair(t.level, t.number);
    tables[key] = std::move(t);
  }
  return Status();
}

Manifest ReadManifest(ByteSpan file, Flavor flavor, std::string_view source) {
  Manifest m;
  LogReadResult log = ReadLogRecords(file, flavor);
  m.findings = std::move(log.findings);
  m.damaged = log.damaged;
  ReplayState state;
  for (const LogRecord& record : log.records) {
    Status s = ApplyEdit(record, flavor, source, m, state, m.findings);
    if (!s.ok()) {
      m.findings.push_back(FindingFromStatus(Severity::kError, kKind, s));
      m.damaged = true;
      break;
    }
  }
  if (state.atomic_remaining > 0 && !m.damaged) {
    m.findings.push_back(MakeFinding(
        Severity::kWarning,
        "the last atomic group is incomplete; RocksDB drops its edits (they are counted here)",
        std::nullopt));
  }
  for (auto& [id, name] : state.names) {
    ColumnFamily c;
    c.id = id;
    c.name = name;
    for (auto& [key, t] : state.tables[id]) c.tables.push_back(std::move(t));
    std::stable_sort(c.tables.begin(), c.tables.end(), [](const TableMeta& a, const TableMeta& b) {
      if (a.level != b.level) return a.level < b.level;
      if (a.level == 0) return a.number < b.number;
      return std::lexicographical_compare(a.smallest.begin(), a.smallest.end(), b.smallest.begin(),
                                          b.smallest.end());
    });
    m.column_families.push_back(std::move(c));
  }
  return m;
}

std::string TableFileName(std::uint64_t number, std::string_view extension) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06llu.", static_cast<unsigned long long>(number));
  return buf + std::string(extension);
}

ByteSpan UserKey(ByteSpan internal_key) {
  return internal_key.first(internal_key.size() >= 8 ? internal_key.size() - 8 : 0);
}

namespace {

DatabaseView ReadDatabaseOnce(const std::string& dir, Flavor flavor,
                              const std::vector<std::string_view>& extensions,
                              bool (*is_table_name)(std::string_view name)) {
  DatabaseView view;
  const fs::path root(dir);
  view.current_path = (root / "CURRENT").string();
  std::error_code ec;
  // CURRENT: the MANIFEST's file name and a newline.
  std::string current;
  {
    std::ifstream in(view.current_path, std::ios::binary);
    if (!in) {
      view.current_findings.push_back(MakeFinding(
          Severity::kError, "no readable CURRENT file: the database does not open", std::nullopt));
    } else {
      char c;
      while (current.size() <= 4096 && in.get(c)) current.push_back(c);
    }
  }
  std::string name;
  if (view.current_findings.empty()) {
    if (current.empty() || current.back() != '\n' || current.size() > 4096) {
      view.current_findings.push_back(
          MakeFinding(Severity::kError,
                      "CURRENT must hold a MANIFEST file name and a newline; found " +
                          std::to_string(current.size()) + " bytes" +
                          (current.empty() || current.back() != '\n' ? " without the newline" : ""),
                      current.size()));
    } else {
      name = current.substr(0, current.size() - 1);
      const bool plausible =
          name.starts_with("MANIFEST-") && name.size() > 9 &&
          std::all_of(name.begin() + 9, name.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!plausible) {
        view.current_findings.push_back(
            MakeFinding(Severity::kError,
                        "CURRENT names \"" + name.substr(0, 80) +
                            "\", not a MANIFEST-NNNNNN file of the directory",
                        0));
        name.clear();
      }
    }
  }
  if (!name.empty()) {
    view.manifest_path = (root / name).string();
    Result<InputFile> in = InputFile::Open(view.manifest_path);
    if (!in.ok()) {
      view.current_findings.push_back(MakeFinding(
          Severity::kError,
          "CURRENT names " + name + ", which cannot be read: " + in.status().message(), 0));
    } else {
      view.manifest = ReadManifest(in->bytes(), flavor, view.manifest_path);
      view.manifest_findings = view.manifest.findings;
      if (!view.manifest.damaged && view.manifest.records == 0) {
        view.manifest_findings.push_back(
            MakeFinding(Severity::kError, "the MANIFEST holds no version edit", std::nullopt));
        view.manifest.damaged = true;
      }
      view.from_manifest = !view.manifest.damaged;
    }
  }
  // Every table file on disk, for the obsolete list and the fallback.
  std::set<std::string> on_disk;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (is_table_name(file)) on_disk.insert(it->path().string());
  }
  if (!view.from_manifest) return view;
  std::set<std::string> live_paths;
  for (const ColumnFamily& c : view.manifest.column_families) {
    for (const TableMeta& t : c.tables) {
      LiveTable live;
      live.column_family = c.name;
      live.meta = t;
      if (t.path_id != 0) {
        view.elsewhere.push_back(TableFileName(t.number, extensions.front()) + " (db_paths[" +
                                 std::to_string(t.path_id) + "])");
        continue;
      }
      live.missing = true;
      for (std::string_view ext : extensions) {
        const std::string p = (root / TableFileName(t.number, ext)).string();
        if (live.path.empty()) live.path = p;
        if (fs::exists(p, ec) || fs::exists(p + ".gz", ec)) {
          live.path = fs::exists(p, ec) ? p : p + ".gz";
          live.missing = false;
          break;
        }
      }
      live_paths.insert(live.path);
      view.live.push_back(std::move(live));
    }
  }
  for (const std::string& p : on_disk) {
    if (!live_paths.count(p)) view.obsolete.push_back(p);
  }
  return view;
}

bool HasMissingTable(const DatabaseView& view) {
  return std::any_of(view.live.begin(), view.live.end(),
                     [](const LiveTable& t) { return t.missing; });
}

}  // namespace

DatabaseView ReadDatabase(const std::string& dir, Flavor flavor,
                          const std::vector<std::string_view>& extensions,
                          bool (*is_table_name)(std::string_view name)) {
  // On a running database, a compaction first logs its new version (appending to the MANIFEST,
  // or switching CURRENT to a new one) and only then deletes the tables it replaced. So a live
  // table missing from the disk may only mean that the MANIFEST read is already stale: read it
  // again while it keeps moving (a few times: a busy node keeps compacting). A table still
  // missing from a MANIFEST that stood still is missing.
  constexpr int kRereads = 4;
  DatabaseView view = ReadDatabaseOnce(dir, flavor, extensions, is_table_name);
  for (int i = 0; i < kRereads && view.from_manifest && HasMissingTable(view); ++i) {
    DatabaseView newer = ReadDatabaseOnce(dir, flavor, extensions, is_table_name);
    const bool moved = newer.manifest_path != view.manifest_path ||
                       newer.manifest.records != view.manifest.records;
    view = std::move(newer);
    if (!moved) break;
  }
  return view;
}

Document InspectDatabase(const DatabaseView& view) {
  Document doc;
  doc["manifest"] = view.manifest_path.empty() ? Document(nullptr) : Document(view.manifest_path);
  doc["from_manifest"] = view.from_manifest;
  const Manifest& m = view.manifest;
  doc["comparator"] = m.comparator ? Document(*m.comparator) : Document(nullptr);
  doc["last_sequence"] = m.last_sequence ? Document(*m.last_sequence) : Document(nullptr);
  doc["next_file"] = m.next_file ? Document(*m.next_file) : Document(nullptr);
  doc["version_edits"] = m.records;
  Document cfs = Document::array();
  for (const ColumnFamily& c : m.column_families) {
    Document cj;
    cj["name"] = c.name;
    cj["id"] = c.id;
    Document levels = Document::array();
    std::map<int, Document> by_level;
    std::map<int, std::uint64_t> bytes;
    for (const TableMeta& t : c.tables) {
      const LiveTable* live = nullptr;
      for (const LiveTable& l : view.live) {
        if (l.meta.number == t.number && l.column_family == c.name) live = &l;
      }
      Document tj;
      tj["file"] = live ? Document(fs::path(live->path).filename().string())
                        : Document(TableFileName(t.number, "sst") + " (db_paths[" +
                                   std::to_string(t.path_id) + "])");
      tj["number"] = t.number;
      tj["size"] = t.size;
      tj["smallest"] = ToHex(UserKey(ByteSpan(t.smallest.data(), t.smallest.size())));
      tj["largest"] = ToHex(UserKey(ByteSpan(t.largest.data(), t.largest.size())));
      if (live && live->missing) tj["missing"] = true;
      if (!by_level.count(t.level)) by_level[t.level] = Document::array();
      by_level[t.level].push_back(std::move(tj));
      bytes[t.level] += t.size;
    }
    for (auto& [l, tables] : by_level) {
      Document lj;
      lj["level"] = l;
      lj["table_count"] = tables.size();
      lj["bytes"] = bytes[l];
      lj["tables"] = std::move(tables);
      levels.push_back(std::move(lj));
    }
    cj["levels"] = std::move(levels);
    cfs.push_back(std::move(cj));
  }
  doc["column_families"] = std::move(cfs);
  Document obsolete = Document::array();
  for (const std::string& p : view.obsolete) obsolete.push_back(fs::path(p).filename().string());
  doc["obsolete"] = std::move(obsolete);
  Document findings = Document::array();
  auto add = [&](const std::vector<Finding>& list, const std::string& file) {
    for (const Finding& f : list) {
      Document fj;
      fj["file"] = file;
      fj["severity"] = std::string(SeverityName(f.severity));
      fj["message"] = f.message;
      if (f.offset) fj["offset"] = *f.offset;
      findings.push_back(std::move(fj));
    }
  };
  add(view.current_findings, view.current_path);
  add(view.manifest_findings, view.manifest_path);
  doc["findings"] = std::move(findings);
  return doc;
}

}  // namespace bloomcodec::manifest
