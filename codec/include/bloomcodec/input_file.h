// InputFile: a whole input file as one read-only byte span.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::InputFile in, bloomcodec::InputFile::Open(path));
//   DecodeSomething(in.bytes(), in.path());
//
// A plain file is memory-mapped read-only (PROT_READ, MAP_PRIVATE): decoders look at the page
// cache directly and nothing is copied. A file under 256 KiB is read into memory instead (one
// read() costs less than setting a mapping up and tearing it down); is_mapped() tells which. A
// name ending in ".gz" is inflated through zlib into memory, transparently. Inputs are never
// opened for writing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

class InputFile {
 public:
  static Result<InputFile> Open(const std::string& path);
  // The file's bytes as stored, even for a name ending in ".gz" (which InflateGzip then reads
  // in pieces: codec/gunzip.h).
  static Result<InputFile> OpenCompressed(const std::string& path);
  // Reads all of standard input (for `--keys -`).
  static Result<InputFile> ReadStdin();
  // Wraps bytes already in memory (tests, in-memory pipelines).
  static InputFile FromBytes(ByteVector bytes, std::string name);

  InputFile(InputFile&&) noexcept;
  InputFile& operator=(InputFile&&) noexcept;
  ~InputFile();

  ByteSpan bytes() const { return bytes_; }
  const std::string& path() const { return path_; }
  bool is_mapped() const { return map_base_ != nullptr; }
  // Gives back the mapped pages of [begin, end) of bytes(), except the one `end` falls in (the
  // reader's next bytes; a page dropped while still read is only mapped again): a reader streaming a
  // file larger than memory calls it behind its cursor, so the process's resident set stays a
  // window of the file, not all of it (the pages stay in the page cache; touching them again
  // maps them again). No effect on a file held in memory (.gz, stdin).
  void DropPages(std::uint64_t begin, std::uint64_t end) const;
  // Tells the kernel the file is read front to back (more read-ahead); a hint only.
  void AdviseSequential() const;

 private:
  InputFile() = default;
  void Release();

  std::string path_;
  ByteSpan bytes_;
  void* map_base_ = nullptr;
  std::size_t map_length_ = 0;
  ByteVector owned_;
};

}  // namespace bloomcodec
