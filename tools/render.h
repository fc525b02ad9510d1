// Human output of the JSON documents (inspect, convert): aligned `field: value` lines.
//
//   std::string text;
//   RenderDocument(doc, text);   // nested objects indented, lists of objects one line each
#pragma once

#include <string>

#include "bloomcodec/format.h"

namespace bloomcodec::tool {

void RenderDocument(const Document& doc, std::string& out, int indent = 0);

}  // namespace bloomcodec::tool
