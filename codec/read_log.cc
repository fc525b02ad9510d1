#include "codec/read_log.h"

#include <sys/stat.h>

#include <cerrno>
#include <mutex>
#include <utility>

namespace bloomcodec {

namespace {

thread_local ReadLog* current_log = nullptr;

std::mutex hook_mutex;
std::function<void(const std::string&)> after_open_hook;  // guarded by hook_mutex

}  // namespace

std::optional<FileIdentity> IdentityOf(const std::string& path, bool* other_error) {
  if (other_error) *other_error = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR && other_error) *other_error = true;
    return std::nullopt;
  }
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                      static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                          st.st_mtim.tv_nsec};
}

ReadLog::ReadLog() : previous_(current_log) { current_log = this; }

ReadLog::~ReadLog() { current_log = previous_; }

void ReadLog::RecordOpened(const std::string& path, const FileIdentity& identity) {
  if (current_log != nullptr) current_log->records_.push_back({path, identity});
  std::function<void(const std::string&)> hook;
  {
    std::lock_guard<std::mutex> lock(hook_mutex);
    hook = after_open_hook;
  }
  if (hook) hook(path);
}

void ReadLog::RecordMissing(const std::string& path) {
  if (current_log == nullptr) return;
  current_log->records_.push_back({path, std::nullopt});
}

void ReadLog::SetAfterOpenHookForTesting(std::function<void(const std::string&)> hook) {
  std::lock_guard<std::mutex> lock(hook_mutex);
  after_open_hook = std::move(hook);
}

}  // namespace bloomcodec
