// The end-to-end benchmarks' Pebble database (bloomcodec_e2e gen pebble): no Pebble runs here, so
// the tables are written by the library's Pebble table writer (pebble/table/table_writer.h,
// whose bytes the tests hold against Pebble's) and the MANIFEST by its log writer.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "bloomcodec/status.h"

namespace bloomcodec::bench {

using Key16 = std::array<std::uint8_t, 16>;

// A Pebble database in `dir` (created) holding `sorted_keys` (sorted, distinct) with empty values:
// Pebblev4 tables of `keys_per_table` keys at L6 (Pebble's bottom level, as after a full
// compaction), 4 KiB blocks and 10 bits per key, as Pebble's defaults write them; MANIFEST-000001
// with one version edit, CURRENT, and an OPTIONS file naming a Pebble version.
Status WritePebbleDatabase(const std::filesystem::path& dir, const std::vector<Key16>& sorted_keys,
                           std::size_t keys_per_table);

}  // namespace bloomcodec::bench
