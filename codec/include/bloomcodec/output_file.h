// Writing outputs safely: a temporary file in the target's directory, then rename.
//
//   BLOOMCODEC_RETURN_IF_ERROR(bloomcodec::WriteFileAtomically("out/Filter.db", bytes));
//
// Readers of OUT never see a partial file: either the old file (or none) or the complete new one.
// A name ending in ".gz" is written gzip-compressed. "-" writes to standard output.
//
// A program that can be interrupted mid-write (the CLI) calls InstallInterruptCleanup() once at
// start: SIGINT, SIGTERM and SIGHUP then remove the temporary file being written before the
// process dies of the signal, so an interrupted run leaves nothing behind.
#pragma once

#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

Status WriteFileAtomically(const std::string& path, ByteSpan contents);

// True when both names refer to the same existing file (device and inode), so that a tool can
// refuse to overwrite one of its inputs.
bool IsSameFile(const std::string& a, const std::string& b);

// Unlinks every temporary file WriteFileAtomically is writing at this moment (from any thread).
// Async-signal-safe: only unlink(2) on paths recorded before their write began.
void RemoveInFlightTemporaryFiles();

// Handlers for SIGINT, SIGTERM and SIGHUP that call RemoveInFlightTemporaryFiles() and then
// re-raise the signal with its default action (the exit status still says which signal it was).
// Signals the process ignores (e.g. SIGHUP under nohup) stay ignored.
void InstallInterruptCleanup();

}  // namespace bloomcodec
