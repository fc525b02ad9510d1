// Internal: gzip inflated in pieces, for readers that stream (key files ending in ".gz").
#pragma once

#include <functional>
#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

// Inflates every gzip member of `in` (as InputFile::Open does for a ".gz" name) and hands the
// content to `piece` in order, about 1 MiB at a time; each piece is valid during its call only.
// Returns the first error: `piece`'s, or Corrupt naming `path` and the compressed offset.
Status InflateGzip(ByteSpan in, const std::string& path,
                   const std::function<Status(ByteSpan piece)>& piece);

}  // namespace bloomcodec
