// Internal header (not installed): which files a unit of work opened, and what each one was.
//
// verify runs on live data directories, where compaction deletes files between the listing and
// the read and writers replace them. To tell "deleted or replaced while we read" from "damaged",
// the engine installs a ReadLog on the worker thread around one task; every InputFile::Open on
// that thread records the path it opened with the identity it saw (device, inode, size, mtime),
// or that the path was gone (ENOENT). Afterwards the engine compares those identities with what
// the paths hold now.
//
//   ReadLog log;                 // this thread's opens are recorded until `log` is destroyed
//   FileReport report = task();
//   for (const ReadRecord& r : log.records()) ...
//
// Logs nest (the innermost one records); a thread without a log records nothing, at the cost
// of one thread-local load per open.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bloomcodec {

// What a path named at one moment: two identities differ when the file was replaced (another
// inode), grew, shrank or was rewritten in place (mtime).
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// The identity `path` names now; nullopt when nothing is there (ENOENT or ENOTDIR). `other_error`
// is set (and nullopt returned) for any other failure, which says nothing about the file.
std::optional<FileIdentity> IdentityOf(const std::string& path, bool* other_error = nullptr);

struct ReadRecord {
  std::string path;
  // The file as opened; nullopt when the open found nothing at the path (ENOENT).
  std::optional<FileIdentity> opened;
};

class ReadLog {
 public:
  ReadLog();
  ~ReadLog();
  ReadLog(const ReadLog&) = delete;
  ReadLog& operator=(const ReadLog&) = delete;

  const std::vector<ReadRecord>& records() const { return records_; }

  // Called by InputFile::Open on success (with the identity of the open descriptor) and when
  // the path was not there. A no-op on a thread without a log.
  static void RecordOpened(const std::string& path, const FileIdentity& identity);
  static void RecordMissing(const std::string& path);

  // Tests only: called (on the opening thread) after every successful InputFile::Open, logged
  // or not (planning opens too), so that a test can delete, grow or replace a file at exactly
  // that moment. Empty: none.
  static void SetAfterOpenHookForTesting(std::function<void(const std::string& path)> hook);

 private:
  std::vector<ReadRecord> records_;
  ReadLog* previous_;
};

}  // namespace bloomcodec
