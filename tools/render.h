// Human output of the JSON documents (inspect, convert): aligned `field: value` lines.
//
//   std::string text;
//   RenderDocument(doc, text);   // nested objects indented, lists of objects one line each
#pragma once

#include <string>

#include "bloomcodec/format.h"

namespace bloomcodec::tool {

// An object `fill_profile` (inspect's, formats/inspect_support.h) is one line of levels.
void RenderDocument(const Document& doc, std::string& out, int indent = 0);

// The levels of a fill profile's buckets, one character each: ' ' for a bucket with no bit set,
// '█' (ASCII '#') for one with every bit set, seven levels between (▁▂▃▄▅▆▇, ASCII .:-=+*%).
// `utf8` picks the block characters.
std::string FillLevels(const Document& buckets, bool utf8);

// Whether the locale's character set is UTF-8, as the first of LC_ALL, LC_CTYPE and LANG that is
// set and not empty names it ("UTF-8" or "utf8", any case); unset: the C locale, ASCII.
bool LocaleIsUtf8();

}  // namespace bloomcodec::tool
