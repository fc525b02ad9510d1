// Writing outputs safely: a temporary file in the target's directory, then rename.
//
//   BLOOMCODEC_RETURN_IF_ERROR(bloomcodec::WriteFileAtomically("out/Filter.db", bytes));
//
// Readers of OUT never see a partial file: either the old file (or none) or the complete new one.
// A name ending in ".gz" is written gzip-compressed. "-" writes to standard output.
#pragma once

#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

Status WriteFileAtomically(const std::string& path, ByteSpan contents);

// True when both names refer to the same existing file (device and inode), so that a tool can
// refuse to overwrite one of its inputs.
bool IsSameFile(const std::string& a, const std::string& b);

}  // namespace bloomcodec
