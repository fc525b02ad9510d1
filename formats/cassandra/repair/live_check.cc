#include "cassandra/repair/live_check.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace bloomcodec::cassandra {
namespace {

// One file asked about, by identity.
struct Target {
  dev_t dev;
  ino_t ino;
  std::string path;      // as given
  std::string resolved;  // realpath, for a mapping whose device the kernel reports differently
};

std::vector<Target> Targets(std::span<const std::string> paths, std::set<uid_t>& owners) {
  std::vector<Target> out;
  for (const std::string& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;
    char buf[PATH_MAX];
    const char* real = ::realpath(p.c_str(), buf);
    out.push_back({st.st_dev, st.st_ino, p, real != nullptr ? std::string(real) : p});
    owners.insert(st.st_uid);
  }
  return out;
}

std::string Comm(const std::string& proc) {
  std::ifstream in(proc + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm.empty() ? "?" : comm;
}

bool IsPid(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

void AddHolder(HolderScan& scan, pid_t pid, const std::string& proc, const Target& t,
               const char* how) {
  for (const FileHolder& h : scan.holders) {
    if (h.pid == pid && h.path == t.path && h.how == how) return;
  }
  scan.holders.push_back({pid, Comm(proc), t.path, how});
}

// The process's open files. False when its fd directory could not be read (permission).
bool ScanFds(const std::string& proc, pid_t pid, const std::vector<Target>& targets,
             HolderScan& scan) {
  DIR* dir = ::opendir((proc + "/fd").c_str());
  if (dir == nullptr) return errno == ENOENT || errno == ESRCH;  // gone: nothing held
  while (const dirent* e = ::readdir(dir)) {
    if (!IsPid(e->d_name)) continue;
    struct stat st {};
    // stat(2) follows the magic link to the open file itself.
    if (::stat((proc + "/fd/" + e->d_name).c_str(), &st) != 0) continue;
    for (const Target& t : targets) {
      if (st.st_dev == t.dev && st.st_ino == t.ino) AddHolder(scan, pid, proc, t, "open");
    }
  }
  ::closedir(dir);
  return true;
}

// The process's file mappings: "start-end perms offset major:minor inode path".
bool ScanMaps(const std::string& proc, pid_t pid, const std::vector<Target>& targets,
              HolderScan& scan) {
  std::FILE* f = std::fopen((proc + "/maps").c_str(), "re");
  if (f == nullptr) return errno == ENOENT || errno == ESRCH;
  char line[PATH_MAX + 256];
  bool read_any = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    read_any = true;
    unsigned major = 0, minor = 0;
    unsigned long long inode = 0;
    int path_at = 0;
    if (std::sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %n", &major, &minor, &inode, &path_at) < 3 ||
        inode == 0) {
      continue;
    }
    std::string path(line + path_at);
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    for (const Target& t : targets) {
      const bool same_inode = static_cast<ino_t>(inode) == t.ino;
      if (same_inode && (::makedev(major, minor) == t.dev || path == t.resolved)) {
        AddHolder(scan, pid, proc, t, "mapped");
      }
    }
  }
  // A maps file this user may not read opens but reads as empty.
  const bool ok = !std::ferror(f) || read_any;
  std::fclose(f);
  return ok;
}

}  // namespace

Result<HolderScan> FindHolders(std::span<const std::string> paths, std::string_view proc_root) {
  std::set<uid_t> owners;
  const std::vector<Target> targets = Targets(paths, owners);
  HolderScan scan;
  if (targets.empty()) return scan;
  const std::string root(proc_root);
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) {
    return Status::IoError(root, std::string("cannot list the processes: ") + std::strerror(errno));
  }
  const pid_t self = ::getpid();
  while (const dirent* e = ::readdir(dir)) {
    if (!IsPid(e->d_name)) continue;
    const pid_t pid = static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10));
    if (pid == self) continue;
    const std::string proc = root + "/" + e->d_name;
    const bool fds = ScanFds(proc, pid, targets, scan);
    const bool maps = ScanMaps(proc, pid, targets, scan);
    if (fds && maps) continue;
    struct stat st {};
    if (::stat(proc.c_str(), &st) == 0 && owners.count(st.st_uid) != 0) {
      scan.unreadable.push_back({pid, Comm(proc), "", ""});
    }
  }
  ::closedir(dir);
  return scan;
}

bool LooksLikeANode(std::string_view comm) { return comm == "java" || comm == "scylla"; }

Status CheckNotInUse(std::span<const std::string> paths, std::string_view proc_root) {
  BLOOMCODEC_ASSIGN_OR_RETURN(HolderScan scan, FindHolders(paths, proc_root));
  bool unknown = false;
  for (const FileHolder& u : scan.unreadable) unknown = unknown || LooksLikeANode(u.comm);
  if (scan.holders.empty() && !unknown) return Status();
  std::ostringstream msg;
  msg << "the sstable is in use";
  const char* sep = ": ";
  for (const FileHolder& h : scan.holders) {
    msg << sep << "process " << h.pid << " (" << h.comm << ") has " << h.path << " " << h.how;
    sep = "; ";
  }
  for (const FileHolder& u : scan.unreadable) {
    if (!LooksLikeANode(u.comm)) continue;
    msg << sep << "process " << u.pid << " (" << u.comm
        << ") runs as the files' owner and its open files cannot be read by this user (run "
           "repair as root or as that user)";
    sep = "; ";
  }
  msg << ". Stop the node (and anything else reading its data) before repairing";
  return Status::Refused(msg.str());
}

}  // namespace bloomcodec::cassandra
