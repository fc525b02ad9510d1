// The FormatCodecs of Pebble's two table filter kinds, `pebble-bloom` and `pebble-binaryfuse`
// (format_codecs.cc). Internal to the library; the Pebble family (family.cc, to come) registers
// them with the engine.
#pragma once

#include "bloomcodec/format.h"
#include "pebble/bloom.h"

namespace bloomcodec::pebble {

// `pebble-bloom`: build writes what Pebble's Bloom writer of the given probe era writes, with
// the signed hash of every Pebble since 2020 (reading goes by the filter's own trailer). The
// default is the rounded era: every Pebble before 2025-12-08 (v1, v2, every go-ethereum).
const FormatCodec* BloomCodec(BloomProbes probes = BloomProbes::kRounded);
// `pebble-binaryfuse`.
const FormatCodec* BinaryFuseCodec();

}  // namespace bloomcodec::pebble
