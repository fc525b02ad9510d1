// Placeholder until the command line lands: lists the formats.
#include <iostream>

#include "bloomcodec/format.h"

int main() {
  for (const bloomcodec::FormatCodec* f : bloomcodec::AllFormats()) std::cout << f->name() << "\n";
  return 0;
}
