#include "engine/live_files.h"

#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "codec/read_log.h"

namespace bloomcodec::engine {
namespace {

namespace fs = std::filesystem;

std::string LexicalKey(const std::string& path) {
  return fs::path(path).lexically_normal().string();
}

// A report that judges nothing: what the task knew of the file (name, format, group) and one
// info finding saying why (the file vanished before it was read, or kept moving under it).
FileReport Unjudged(const FileReport& read, DuringRun during_run, std::string_view kind,
                    std::string message) {
  FileReport unjudged;
  unjudged.path = read.path;
  unjudged.format = read.format;
  unjudged.version = read.version;
  unjudged.group = read.group;
  unjudged.group_role = read.group_role;
  unjudged.during_run = during_run;
  unjudged.Add(Severity::kInfo, kind, std::move(message));
  return unjudged;
}

}  // namespace

void ListedFiles::AddFile(const std::string& path) { paths_.insert(LexicalKey(path)); }

void ListedFiles::AddTree(const std::string& dir) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) paths_.insert(LexicalKey(it->path().string()));
  }
}

bool ListedFiles::Contains(const std::string& path) const {
  return paths_.contains(LexicalKey(path));
}

VerifyTask WatchedTask(VerifyTask task, std::shared_ptr<const ListedFiles> listed) {
  return [task = std::move(task), listed = std::move(listed)]() -> FileReport {
    constexpr int kReads = 2;  // a file that moved under the first read gets one more
    FileReport report;
    for (int attempt = 1;; ++attempt) {
      ReadLog log;
      report = task();
      std::optional<std::string> deleted_after_read, moved;
      for (const ReadRecord& r : log.records()) {
        if (!r.opened) {
          if (listed->Contains(r.path)) {
            return Unjudged(report, DuringRun::kGone, finding_kind::kGone,
                            r.path +
                                " was listed, then deleted before it could be read (compaction or "
                                "a drop on a live node); not judged, not in the fp rate");
          }
          continue;  // never there: the family's finding (missing component) stands
        }
        bool other_error = false;
        const std::optional<FileIdentity> now = IdentityOf(r.path, &other_error);
        if (other_error) continue;  // cannot look again (permissions): nothing learnt
        if (!now) {
          if (!deleted_after_read) deleted_after_read = r.path;
        } else if (!(*now == *r.opened)) {
          if (!moved) moved = r.path;
        }
      }
      if (moved) {
        if (attempt < kReads) continue;
        return Unjudged(report, DuringRun::kChanged, finding_kind::kChanged,
                        *moved +
                            " changed while it was read, twice (replaced, or still being "
                            "written); not judged from torn bytes, not in the fp rate: verify it "
                            "again later");
      }
      if (deleted_after_read) {
        report.during_run = DuringRun::kGone;
        report.Add(Severity::kInfo, finding_kind::kGone,
                   *deleted_after_read +
                       " was deleted during the run, after it was read (compaction on a live "
                       "node): judged as it was read, not in the fp rate, not counted as an "
                       "error");
      }
      return report;
    }
  };
}

}  // namespace bloomcodec::engine
