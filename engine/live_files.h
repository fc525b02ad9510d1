// Internal header: verify on live data directories.
//
// A running node compacts while verify reads: sstables and tables listed at planning time are
// deleted before their turn, and a table being written grows under the reader. Neither is damage,
// and judging either would cry wolf (an "unreadable" error, a truncated footer). So every verify
// task runs watched (engine/verify_plan.cc wraps them all):
//   - a file that was listed and is gone when the task opens it: the task's report becomes
//     "gone during the run" (info, not in the fp rate, not an error). A file that was never
//     listed (a component missing from the start) stays whatever the family makes of it.
//   - a file deleted after the task read it (its mapping outlives the unlink): judged as read,
//     then reported gone (the verdict is about bytes no read will consult again).
//   - a file replaced or modified while the task read it (inode, size or mtime moved between the
//     open and the end of the task): read again once; if it moves again, "changed during the
//     run", not judged.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "bloomcodec/verify.h"

namespace bloomcodec::engine {

// The files the planning saw: every regular file under the directories given, and the files
// given. Paths are lexically normal (a/./b and a//b are a/b), as LexicalKey makes them.
class ListedFiles {
 public:
  void AddFile(const std::string& path);
  void AddTree(const std::string& dir);  // recursive; unreadable sub-directories are skipped
  bool Contains(const std::string& path) const;

 private:
  std::unordered_set<std::string> paths_;
};

// `task`, run so that files vanishing or changing during the run are told apart from damage.
VerifyTask WatchedTask(VerifyTask task, std::shared_ptr<const ListedFiles> listed);

}  // namespace bloomcodec::engine
