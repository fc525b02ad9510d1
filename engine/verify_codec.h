// verify for the formats that have no verifier of their own (raw filters, filter blocks, row
// filters): the codec's Probe checks the structure and answers the keys; the family's
// `filters_of` hook (engine/family.h) says where the filters are, and their fill is judged here.
// Internal to the library.
#pragma once

#include <string>

#include "bloomcodec/format.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/verify.h"

namespace bloomcodec {

// Verifies the file at `path` as `format`. `keys` (optional) must all be answered "may contain"
// and are the key count the fill is judged against (a filter block: that of the filter Probe
// asks, filter 0); without them, and for a block's other filters, the most keys the filter's
// size and k allow (JudgeFill: overfilled, or undersized when saturated by that count).
FileReport VerifyWithCodec(const std::string& path, const FormatCodec* format,
                           const KeyStream* keys, const ProbeOptions& probe);

}  // namespace bloomcodec
