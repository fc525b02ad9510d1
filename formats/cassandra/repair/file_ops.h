// Internal: the file-system steps of a repair transaction (repair.h), one virtual call each, so
// that every step that changes the disk goes through one place.
//
//   FileOps ops;                                        // the real system calls
//   BLOOMCODEC_RETURN_IF_ERROR(ops.Write(tmp, bytes, &old_stat));   // O_EXCL, mode and owner
//   BLOOMCODEC_RETURN_IF_ERROR(ops.Fsync(tmp));
//   BLOOMCODEC_RETURN_IF_ERROR(ops.Rename(tmp, final_path));
//   BLOOMCODEC_RETURN_IF_ERROR(ops.FsyncDir(dir));
//
// Why a class: a crash can happen between any two of these calls, and the transaction promises a
// consistent sstable after each. Tests subclass it to stop the process at the N-th call (every
// call, for every N: tests/repair/cassandra_fault_test.cc), which needs no hook in the library.
// Each call is one step as the kernel sees it; a write may also be cut short inside (a test
// writes a prefix and dies).
#pragma once

#include <sys/stat.h>

#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

class FileOps {
 public:
  virtual ~FileOps() = default;
  // Creates `path` (it must not exist), writes `bytes`, closes it. With `like`, the new file gets
  // its permission bits and, when the process may change them (root), its owner and group: a
  // file Cassandra cannot delete after compaction must never replace one it could.
  virtual Status Write(const std::string& path, ByteSpan bytes, const struct stat* like);
  // fsync(2) of a file's data and metadata.
  virtual Status Fsync(const std::string& path);
  // fsync(2) of a directory: makes the names created, renamed or removed in it durable.
  virtual Status FsyncDir(const std::string& dir);
  // rename(2): `to` names the new file at once; a crash leaves the old or the new one.
  virtual Status Rename(const std::string& from, const std::string& to);
  // link(2). A `to` that exists and is the same file as `from` is success (a re-run).
  virtual Status Link(const std::string& from, const std::string& to);
  // mkdir(2) of one directory with mode 0755 (or that of `like`); an existing one is success.
  virtual Status MakeDir(const std::string& dir, const struct stat* like);
  // unlink(2); a name already gone is success.
  virtual Status Remove(const std::string& path);
};

// stat(2) as a Result naming the path.
Result<struct stat> StatPath(const std::string& path);

}  // namespace bloomcodec::cassandra
