// Internal: is any process using these files? Repair refuses an sstable that a running process
// (a Cassandra or ScyllaDB node, a backup agent, sstableloader) has open or mapped: a node that
// holds Filter.db would keep serving its old filter and could rewrite or delete the files
// under us. There is no --force: stop the node first.
//
//   BLOOMCODEC_RETURN_IF_ERROR(cassandra::CheckNotInUse({"/data/ks/t-1/nb-1-big-Filter.db", ...}));
//   // or, with the holders: FindHolders(paths) -> {pid, comm, path, "open" | "mapped"}
//
// How: every /proc/<pid>/fd/<n> is stat(2)ed (the kernel follows the link to the open file, so
// its device and inode are those of the file whatever the path the process used: another mount
// of the same file system, a bind mount, a chroot), and every line of /proc/<pid>/maps is
// compared by device and inode (the mapping's file, even after its name was unlinked). The
// files are identified by their own stat(2), not by name. Our own process is skipped (repair
// reads the sstable through mappings of its own).
//
// What it cannot see: a process whose fd and maps this process may not read (another user's,
// unless we are root; one with capabilities we lack, such as a container's init). Those that run
// as the owner of one of the files are listed (`unreadable`); one of them that is a JVM or
// ScyllaDB (comm "java" or "scylla": most likely the node itself) refuses, since the answer is
// unknown; the others do not. Run repair as root or as the database's user. A process that opens a file after the check
// is not seen: the node must stay stopped for the whole repair (repair checks again just before
// it renames anything).
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

struct FileHolder {
  pid_t pid = 0;
  std::string comm;  // /proc/<pid>/comm
  std::string path;  // which of the files asked about
  std::string how;   // "open" (a file descriptor) or "mapped" (a memory mapping)
};

struct HolderScan {
  std::vector<FileHolder> holders;
  // Processes of a file's owner whose fd or maps could not be read (path and how empty).
  std::vector<FileHolder> unreadable;
};

// Whether an uninspectable process of the files' owner refuses the check: a JVM or ScyllaDB.
bool LooksLikeANode(std::string_view comm);

// Which processes other than this one hold any of `paths` (files that do not exist are
// ignored). `proc_root` is "/proc" except in tests.
Result<HolderScan> FindHolders(std::span<const std::string> paths,
                               std::string_view proc_root = "/proc");

// Refused (naming every holder: pid, comm, file, open or mapped) when FindHolders finds one, or
// an unreadable process that LooksLikeANode.
Status CheckNotInUse(std::span<const std::string> paths, std::string_view proc_root = "/proc");

}  // namespace bloomcodec::cassandra
