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

// --bits-per-key as Pebble's policies take it: a whole number from 1 (InvalidArgument naming
// `what` otherwise, and for --fp-chance / --buckets-per-element).
Result<std::uint32_t> WholeBits(const FilterParams& params, std::string_view what);

}  // namespace bloomcodec::pebble
