// The file-system changes of a repair, each one durable in the order it is made: new files are
// written, fsynced and closed before they are renamed, and a directory is fsynced after the names
// in it change. Internal to formats/lsmrepair.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(DurableWriter out, DurableWriter::Create(dir + "/000012.dbtmp"));
//   BLOOMCODEC_RETURN_IF_ERROR(out.CopyRange(old_fd, 0, kept));  // copy_file_range
//   BLOOMCODEC_RETURN_IF_ERROR(out.Append(tail));
//   BLOOMCODEC_RETURN_IF_ERROR(out.Finish());                    // fsync, close
//   BLOOMCODEC_RETURN_IF_ERROR(RenameFile(temp, final_name));
//   BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(dir));
//
// Every change goes through a step hook first: tests set one that stops the process at the N-th
// step (fault injection), then open the database with its real reader. Nothing else sets it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::lsmrepair {

enum class Step { kCreate, kWrite, kSync, kRename, kLink, kUnlink, kMakeDirectory, kSyncDirectory };
std::string_view StepName(Step step);

// Called before each step with the path it changes. Tests only; null (the default): none.
using StepHook = void (*)(Step step, const std::string& path);
void SetStepHook(StepHook hook);

// A new file (an existing one of the name is truncated), written front to back.
class DurableWriter {
 public:
  static Result<DurableWriter> Create(const std::string& path);
  DurableWriter(DurableWriter&& other) noexcept;
  DurableWriter& operator=(DurableWriter&&) = delete;
  ~DurableWriter();  // closes without syncing (an abandoned file)

  Status Append(ByteSpan bytes);
  // Bytes [offset, offset + length) of the open file `from_fd`, copied in the kernel
  // (copy_file_range; read and write where the file systems do not allow it).
  Status CopyRange(int from_fd, std::uint64_t offset, std::uint64_t length);
  // fsync, then close.
  Status Finish();

  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }

 private:
  DurableWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  Status WriteAll(const std::uint8_t* data, std::size_t n);

  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// A whole small file: created, written, fsynced, closed.
Status WriteFileDurably(const std::string& path, ByteSpan bytes);
Status RenameFile(const std::string& from, const std::string& to);
Status LinkFile(const std::string& existing, const std::string& link);
Status RemoveFile(const std::string& path);
Status MakeDirectory(const std::string& path);
Status SyncDirectory(const std::string& dir);

}  // namespace bloomcodec::lsmrepair
