// Planning a repair and rewriting its tables (steps 2 and 3 of repair_transaction.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "blocktable/crc32c.h"
#include "bloomcodec/input_file.h"
#include "lsmrepair/durable_io.h"
#include "lsmrepair/repair_steps.h"

namespace bloomcodec::lsmrepair {
namespace {

namespace fs = std::filesystem;

bool IsTableName(std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot == 0 || dot == std::string_view::npos) return false;
  if (!std::all_of(name.begin(), name.begin() + dot, [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const std::string_view ext = name.substr(dot + 1);
  return ext == "ldb" || ext == "sst";
}

// The number a database file's name carries (NNNNNN.ext, MANIFEST-N, CURRENT.N), if any.
std::optional<std::uint64_t> NumberInName(std::string_view name) {
  for (std::string_view prefix : {"MANIFEST-", "CURRENT."}) {
    if (name.starts_with(prefix)) {
      name.remove_prefix(prefix.size());
      break;
    }
  }
  std::size_t digits = 0;
  while (digits < name.size() && digits < 19 && name[digits] >= '0' && name[digits] <= '9') {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return std::stoull(std::string(name.substr(0, digits)));
}

Result<std::uint64_t> LargestNumberOnDisk(const std::string& dir) {
  std::uint64_t largest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = NumberInName(it->path().filename().string())) largest = std::max(largest, *n);
  }
  if (ec) return Status::IoError(dir, "list the directory: " + ec.message());
  return largest;
}

Status Refuse(const std::string& dir, std::string why) {
  return Status::Unsupported(dir + ": " + std::move(why) + "; the database is not repaired");
}

// The database's view, refused when its writer would not open it as it is.
Result<manifest::DatabaseView> ReadView(const std::string& dir, manifest::Flavor flavor) {
  const std::vector<std::string_view> extensions = flavor == manifest::Flavor::kLevelDb
                                                       ? std::vector<std::string_view>{"ldb", "sst"}
                                                       : std::vector<std::string_view>{"sst"};
  manifest::DatabaseView view = manifest::ReadDatabase(dir, flavor, extensions, IsTableName);
  for (const auto* list : {&view.current_findings, &view.manifest_findings}) {
    for (const Finding& f : *list) {
      if (f.severity == Severity::kError) {
        return Refuse(dir, "CURRENT or its MANIFEST is damaged (" + f.message + ")");
      }
    }
  }
  if (!view.from_manifest) return Refuse(dir, "no MANIFEST to repair the tables of");
  if (view.manifest.open_atomic_group) {
    return Refuse(dir, "the MANIFEST ends in an incomplete atomic group");
  }
  if (!view.manifest.next_file) return Refuse(dir, "the MANIFEST records no next file number");
  for (const manifest::LiveTable& t : view.live) {
    if (t.missing) return Refuse(dir, "live table " + t.path + " is missing");
  }
  return view;
}

// The tables options.select chooses, and on level 0 every newer one of the same column family.
std::vector<TableToRepair> ChooseTables(const manifest::DatabaseView& view,
                                        const RepairOptions& options) {
  std::vector<TableToRepair> all;
  for (const manifest::ColumnFamily& c : view.manifest.column_families) {
    for (const manifest::TableMeta& t : c.tables) {
      for (const manifest::LiveTable& live : view.live) {
        if (live.meta.number != t.number || live.column_family != c.name) continue;
        if (t.path_id != 0 || live.path.ends_with(".gz")) continue;  // not in this directory
        all.push_back({c.name, c.id, t, live.path});
      }
    }
  }
  std::map<std::uint32_t, std::uint64_t> oldest_level0;  // column family -> number
  std::vector<bool> chosen(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    chosen[i] = !options.select || options.select(all[i]);
    if (chosen[i] && all[i].meta.level == 0) {
      auto [it, fresh] = oldest_level0.emplace(all[i].column_family_id, all[i].meta.number);
      if (!fresh) it->second = std::min(it->second, all[i].meta.number);
    }
  }
  std::vector<TableToRepair> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto it = oldest_level0.find(all[i].column_family_id);
    const bool newer_level0 =
        all[i].meta.level == 0 && it != oldest_level0.end() && all[i].meta.number > it->second;
    if (chosen[i] || newer_level0) out.push_back(std::move(all[i]));
  }
  // Numbered by column family, level, then (level 0) old number: the order level 0 needs.
  std::stable_sort(out.begin(), out.end(), [](const TableToRepair& a, const TableToRepair& b) {
    if (a.column_family_id != b.column_family_id) return a.column_family_id < b.column_family_id;
    if (a.meta.level != b.meta.level) return a.meta.level < b.meta.level;
    return a.meta.level == 0 && a.meta.number < b.meta.number;
  });
  return out;
}

}  // namespace

std::string ManifestName(std::uint64_t number) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "MANIFEST-%06llu", static_cast<unsigned long long>(number));
  return buf;
}

Result<RepairPlan> PlanRepair(const std::string& dir, const RepairOptions& options) {
  if (!options.rewrite) return Status::InvalidArgument("a repair needs the family's rewrite");
  BLOOMCODEC_ASSIGN_OR_RETURN(manifest::DatabaseView view, ReadView(dir, options.flavor));
  RepairPlan plan;
  plan.dir = dir;
  plan.old_manifest = view.manifest_path;
  {
    std::ifstream in(view.current_path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    plan.old_current = text.str();
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile old, InputFile::Open(view.manifest_path));
  manifest::LogReadResult log = manifest::ReadLogRecords(old.bytes(), options.flavor);
  if (log.damaged) return Refuse(dir, "its MANIFEST is damaged");
  plan.records = std::move(log.records);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t largest, LargestNumberOnDisk(dir));
  std::uint64_t next = std::max(*view.manifest.next_file, largest + 1);
  for (TableToRepair& t : ChooseTables(view, options)) {
    PlannedTable p;
    p.extension = fs::path(t.path).extension().string().substr(1);
    p.table = std::move(t);
    p.new_number = next++;
    plan.tables.push_back(std::move(p));
  }
  plan.manifest_number = next++;
  plan.next_file = next;
  return plan;
}

namespace {

std::string TablePath(const RepairPlan& plan, std::uint64_t number, std::string_view ext) {
  return plan.dir + "/" + manifest::TableFileName(number, ext);
}

// An open read-only descriptor, closed on scope exit.
struct ReadFd {
  int fd = -1;
  ~ReadFd() {
    if (fd >= 0) ::close(fd);
  }
};

// The rewrite (steps 3a-3b): the family's verified rewrite of the old table, or why not.
Result<std::optional<TableRewrite>> FamilyRewrite(const PlannedTable& planned, const InputFile& old,
                                                  const RepairOptions& options) {
  const ByteSpan file = old.bytes();
  const manifest::TableMeta& m = planned.table.meta;
  if (file.size() != m.size) {
    return Status::CorruptFile(planned.table.path, "the file has " + std::to_string(file.size()) +
                                                       " bytes, its MANIFEST record " +
                                                       std::to_string(m.size));
  }
  std::string function;
  if (FileChecksumNeed(m.record, &function) == ChecksumNeed::kUnsupported) {
    return Status::Unsupported("its MANIFEST records a file checksum of \"" + function +
                               "\", which bloomcodec does not compute");
  }
  TableToRepair table = planned.table;
  table.mapped = &old;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<TableRewrite> rewrite, options.rewrite(table, file));
  if (rewrite && rewrite->kept_prefix > file.size()) {
    return Status::Internal("the rewrite keeps more bytes than the table has");
  }
  return rewrite;
}

// The read-back's window: the pages of both mappings are given back after each, so a table's
// read-back holds at most two windows of mapped file pages, whatever the table's size.
constexpr std::uint64_t kReadBackWindow = std::uint64_t{8} << 20;

// The written file read back is the old prefix and the new tail, byte for byte: the kernel's
// copy and the writes landed as made, so the family's check need not read the data blocks again.
// `crc` (when given) receives the written file's CRC32C, computed in the same pass.
Status SameAsRewrite(const std::string& path, const InputFile& written, const InputFile& old,
                     const TableRewrite& r, std::optional<std::uint32_t>* crc) {
  const ByteSpan w = written.bytes();
  if (w.size() != r.kept_prefix + r.tail.size()) {
    return Status::Internal(path + ": " + std::to_string(w.size()) + " bytes written, " +
                            std::to_string(r.kept_prefix + r.tail.size()) + " expected");
  }
  std::uint32_t sum = 0;
  for (std::uint64_t at = 0; at < w.size(); at += kReadBackWindow) {
    const std::uint64_t end = std::min<std::uint64_t>(at + kReadBackWindow, w.size());
    const ByteSpan got = w.subspan(at, end - at);
    const std::uint64_t in_prefix = at < r.kept_prefix ? std::min(end, r.kept_prefix) - at : 0;
    if (!std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(in_prefix),
                    old.bytes().begin() + static_cast<std::ptrdiff_t>(at))) {
      return Status::Internal(path + ": the copied prefix differs from the old table's");
    }
    // The window's rest is the tail's, from the window's first byte past the prefix.
    const std::uint64_t tail_at = in_prefix == got.size() ? 0 : at + in_prefix - r.kept_prefix;
    if (in_prefix < got.size() &&
        !std::equal(got.begin() + static_cast<std::ptrdiff_t>(in_prefix), got.end(),
                    r.tail.begin() + static_cast<std::ptrdiff_t>(tail_at))) {
      return Status::Internal(path + ": the written tail differs from the rewrite");
    }
    if (crc) sum = at == 0 ? blocktable::Crc32c(got) : blocktable::Crc32cExtend(sum, got);
    written.DropPages(at, end);
    old.DropPages(at, end);
  }
  if (crc) *crc = sum;
  return Status();
}

}  // namespace

PreparedRewrite PrepareRewrite(const PlannedTable& planned, const RepairOptions& options) {
  PreparedRewrite out;
  Result<InputFile> old = InputFile::Open(planned.table.path);
  if (!old.ok()) {
    out.stop = old.status();
    return out;
  }
  out.rewrite = FamilyRewrite(planned, *old, options);
  return out;  // the mapping (and the pages the pass read) go with `old`
}

Status RewriteTable(const RepairPlan& plan, const PlannedTable& planned,
                    const RepairOptions& options, TableOutcome& outcome,
                    std::optional<TableReplacement>& replacement, std::vector<std::string>& made) {
  return RewriteTable(plan, planned, options, PrepareRewrite(planned, options), outcome,
                      replacement, made);
}

Status RewriteTable(const RepairPlan& plan, const PlannedTable& planned,
                    const RepairOptions& options, PreparedRewrite prepared, TableOutcome& outcome,
                    std::optional<TableReplacement>& replacement, std::vector<std::string>& made) {
  const TableToRepair& t = planned.table;
  outcome = TableOutcome{};
  outcome.column_family = t.column_family;
  outcome.level = t.meta.level;
  outcome.old_number = t.meta.number;
  outcome.old_size = t.meta.size;
  outcome.old_path = t.path;
  BLOOMCODEC_RETURN_IF_ERROR(prepared.stop);
  const Result<std::optional<TableRewrite>>& rewrite = prepared.rewrite;
  if (!rewrite.ok() || !*rewrite) {
    outcome.left_alone = rewrite.ok() ? "nothing to change" : rewrite.status().ToString();
    outcome.unsupported = !rewrite.ok() && rewrite.status().code() == StatusCode::kUnsupported;
    return Status();
  }
  // Mapped again for the read-back, which maps a window at a time.
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile old, InputFile::Open(t.path));
  const TableRewrite& r = **rewrite;
  ReadFd source{::open(t.path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (source.fd < 0) return Status::IoError(t.path, std::string("open: ") + std::strerror(errno));
  const std::string temp = TablePath(plan, planned.new_number, "dbtmp");
  made.push_back(temp);
  BLOOMCODEC_ASSIGN_OR_RETURN(DurableWriter out, DurableWriter::Create(temp));
  BLOOMCODEC_RETURN_IF_ERROR(out.CopyRange(source.fd, 0, r.kept_prefix));
  BLOOMCODEC_RETURN_IF_ERROR(out.Append(r.tail));
  BLOOMCODEC_RETURN_IF_ERROR(out.Finish());
  const bool wants_crc = FileChecksumNeed(t.meta.record, nullptr) == ChecksumNeed::kCrc32c;
  std::optional<std::uint32_t> crc;
  {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile written, InputFile::Open(temp));
    Status checked = SameAsRewrite(temp, written, old, r, wants_crc ? &crc : nullptr);
    if (checked.ok() && options.check) checked = options.check(t, old.bytes(), written.bytes());
    if (!checked.ok()) {
      outcome.left_alone = "the rewritten table did not read back: " + checked.ToString();
      made.pop_back();
      return RemoveFile(temp);
    }
  }
  TableReplacement rep{t.column_family_id, t.meta, planned.new_number,
                       r.kept_prefix + r.tail.size(), std::nullopt};
  if (crc) rep.file_checksum = Crc32cFileChecksum(*crc);
  // The MANIFEST record must encode before the table is put in.
  Result<ByteVector> field = EncodeReplacedNewFile(rep);
  if (!field.ok()) {
    outcome.left_alone = field.status().ToString();
    made.pop_back();
    return RemoveFile(temp);
  }
  const std::string final_path = TablePath(plan, planned.new_number, planned.extension);
  made.back() = final_path;
  BLOOMCODEC_RETURN_IF_ERROR(RenameFile(temp, final_path));
  outcome.new_number = planned.new_number;
  outcome.new_size = rep.new_size;
  outcome.new_path = final_path;
  replacement = std::move(rep);
  return Status();
}

Status KeepLevel0Order(std::vector<TableOutcome>& outcomes,
                       std::vector<std::optional<TableReplacement>>& replaced) {
  std::map<std::string, std::uint64_t> newest_left;  // column family -> level-0 number
  for (const TableOutcome& o : outcomes) {
    if (o.level == 0 && !o.left_alone.empty()) {
      newest_left[o.column_family] = std::max(newest_left[o.column_family], o.old_number);
    }
  }
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    TableOutcome& o = outcomes[i];
    const auto it = newest_left.find(o.column_family);
    if (o.level != 0 || !o.left_alone.empty() || it == newest_left.end() ||
        o.old_number > it->second) {
      continue;
    }
    BLOOMCODEC_RETURN_IF_ERROR(RemoveFile(o.new_path));
    o.left_alone = "level-0 table " + std::to_string(it->second) +
                   ", newer, is left alone: replacing this one would make it look newer";
    o.new_number = o.new_size = 0;
    o.new_path.clear();
    replaced[i].reset();
  }
  return Status();
}

}  // namespace bloomcodec::lsmrepair
