#include "bloomcodec/key_list.h"

namespace bloomcodec {

bool ParseKeyFormat(std::string_view name, KeyFormat& out) {
  if (name == "text")
    out = KeyFormat::kText;
  else if (name == "hex")
    out = KeyFormat::kHex;
  else if (name == "base64")
    out = KeyFormat::kBase64;
  else
    return false;
  return true;
}

}  // namespace bloomcodec
