// Columnar blocks as Pebble writes them, byte for byte: the examples of formats/pebble/FORMAT.md
// §6 and further cases that Pebble's own tests print (cockroachdb/pebble sstable/colblk/testdata,
// sstable/testdata/columnar_writer, cockroachkvs/testdata), restated here as hex with the inputs
// that produce them. The golden tests rebuild each from its inputs with our encoders; the damaged
// tests break them at known offsets.
#pragma once

#include <string>

namespace bloomcodec::pebble::colblk::goldens {

// A Pebblev5 data block, default key schema: a#1,SET = "a" and b#2,DEL = "". Header: maximum key
// length 1; version 1; 7 columns; 2 rows; directory (type, start): prefixbytes 46, bytes 54,
// uint 55, bool 60, bytes 80, bool 85, bool 86. Prefixes: shift 4, 1-byte offsets 00 00 01 02,
// "a" "b" (empty shared and bundle prefixes). Suffixes: width-0 offsets (all empty). Trailers:
// 2-byte plain 257, 512 (no delta: two rows do not pay for an 8-byte base). Prefix changed:
// stored, padding to 64, word 0x03, summary 0x01. Values: 1-byte offsets 00 01 01, "a". Two
// all-zero bitmaps, the padding byte.
inline const std::string kTwoKeysDataBlock =
    "01000000"  // maximum key length
    "01 0700 02000000"
    "042e000000 0336000000 0237000000 013c000000 0350000000 0155000000 0156000000"
    "04 01 00000102 6162"
    "00"
    "02 0101 0002"
    "00 000000 0300000000000000 0100000000000000"
    "01 000101 61"
    "01 01"
    "00";

// The same table shape with a#1,SET=apple, b#1,SET=banana, c#1,SET=cantelope (one 116-byte data
// block): three equal trailers still take 2-byte plain integers (3 x 2 bytes < a 9-byte base).
inline const std::string kThreeFruitsDataBlock =
    "01000000 01 0700 03000000"
    "042e000000 0338000000 0239000000 0140000000 0358000000 0171000000 0172000000"
    "04 01 0000010203 616263"
    "00"
    "02 0101 0101 0101"
    "00 00000000000000 0700000000000000 0100000000000000"
    "01 00050b14 6170706c65 62616e616e61 63616e74656c6f7065"
    "01 01 00";

// An index block of six entries: (separator, offset, length, block properties) = (apple, 24, 24,
// bp1), (applied, 141, 112, bp2), (atone, 195, 49, bp3), (bacitracin, 412, 212, -),
// (banana, 632, 215, bp5), (bonifide, 963, 326, bp6). Offsets and lengths are 2-byte plain
// columns, one padding byte after each encoding byte.
inline const std::string kSixEntryIndexBlock =
    "01 0400 06000000 031b000000 024c000000 025a000000 0368000000"
    "01 00050c111b2129"
    "6170706c65 6170706c696564 61746f6e65 6261636974726163696e 62616e616e61"
    "626f6e6966696465"
    "02 00 1800 8d00 c300 9c01 7802 c303"
    "02 00 1800 7000 3100 d400 d700 4601"
    "01 00030609090c0f"
    "627031 627032 627033 627035 627036"
    "00";

// The index block of a table without data blocks: no rows, four empty columns at byte 27.
inline const std::string kEmptyIndexBlock =
    "01 0400 00000000 031b000000 021b000000 021b000000 031b000000 00";

// A metaindex (Pebblev6+ key-value block): properties -> handle (50, 13), index -> (65, 13).
inline const std::string kMetaIndexBlock =
    "01 0200 02000000 0311000000 0324000000"
    "01 000a0f 70726f70657274696573 696e646578"
    "01 000204 320d 410d"
    "00";

// A keyspan block of range deletions a-b:{#0}, b-c:{#100, #20, #0}, c-d:{#100, #0}, d-e:{#0}:
// header 5 boundary keys; boundaries a..e with start indices 0 1 4 6 7; seven trailers (kind 15,
// 2-byte plain); empty suffix and value columns take one byte each (width-0 offsets).
inline const std::string kRangeDelKeyspanBlock =
    "05000000 01 0500 07000000"
    "0324000000 0230000000 0236000000 0346000000 0347000000"
    "01 000102030405 6162636465"
    "01 0001040607"
    "02 00 0f00 0f64 0f14 0f00 0f64 0f00 0f00"
    "00 00"
    "00";

// The range-deletion block of a table holding only a-b:{#10,RANGEDEL}.
inline const std::string kOneRangeDelBlock =
    "02000000 01 0500 01000000"
    "0324000000 022a000000 022d000000 0330000000 0331000000"
    "01 000102 6162"
    "01 0001"
    "02 0f0a"
    "00 00 00";

// The range-key block of a table holding a-b:{(#10,RANGEKEYSET,@5,foo)} and b-c:{(#9,
// RANGEKEYDEL)}: the two spans share boundary b.
inline const std::string kRangeKeyBlock =
    "03000000 01 0500 02000000"
    "0324000000 022c000000 0230000000 0336000000 033c000000"
    "01 00010203 616263"
    "01 000102"
    "02 00 150a 1309"
    "01 000202 4035"
    "01 000303 666f6f"
    "00";

// A crdb1 data block of 13 keys (CockroachDB engine keys; "@" separates the roach key from the
// version, given without its length byte):
//   foo #3,SET=nosuffix3  foo #2,SET=nosuffix2  foo #1,SET=nosuffix1
//   foo@0102030405060708091011121314151617 #1,SET=lockkey          (17 bytes: untyped)
//   foo@010203040506070801020304 #2,SET=mvcclogical2                (wall + logical)
//   foo@01020304050607080102030401 #1,SET=mvcclogical1              (13 bytes: synthetic bit)
//   foo@010203040506070800000000 #4,SET=mvcc4  foo@0102030405060708 #3,SET=mvcc3
//   foo@01020304050607080000000001 #2,SET=mvcc2  foo@0102030405060708 #1,SET=mvcc1
//   "foo\x00"@0102030405060708 #1,SET=mvcc1  fop #1,SET=foo  x #1,SET=x
// Header: suffix types 7, maximum key length 22; 9 columns. Roach keys: shift 4, one bundle,
// "foo" once for rows 0..10, then "foo\x00", "fop", "x". Wall times: 8-byte plain. Logical times:
// 4-byte plain. Untyped versions: row 3's 17 bytes. Trailers 2-byte plain. Prefix changed: rows
// 0, 10, 11, 12.
inline const std::string kCrdb1DataBlock =
    "07 16000000 01 0900 0d000000"
    "0439000000 0255000000 02c0000000 03f8000000 0218010000 0134010000 0348010000"
    "01ae010000 01af010000"
    "04 01 0000 03030303030303030303 070a0b 666f6f 666f6f00 666f70 78"
    "08 0000"
    "0000000000000000 0000000000000000 0000000000000000 0000000000000000"
    "0807060504030201 0807060504030201 0807060504030201 0807060504030201"
    "0807060504030201 0807060504030201 0807060504030201 0000000000000000"
    "0000000000000000"
    "04 000000"
    "00000000 00000000 00000000 00000000 04030201 04030201 00000000 00000000"
    "00000000 00000000 00000000 00000000 00000000"
    "01 0000000011111111111111111111 0102030405060708091011121314151617"
    "02 00 0103 0102 0101 0101 0102 0101 0104 0103 0102 0101 0101"
    "0101 0101"
    "00 000000 011c000000000000 0100000000000000"
    "01 0009121b222e3a3f44494e535657"
    "6e6f737566666978336e6f737566666978326e6f737566666978316c6f636b6b6579"
    "6d7663636c6f676963616c326d7663636c6f676963616c31"
    "6d766363346d766363336d766363326d766363316d76636331 666f6f 78"
    "01 01 00";

// Removes the spaces our hex literals use for readability.
inline std::string Squeeze(const std::string& hex) {
  std::string out;
  for (char c : hex) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

}  // namespace bloomcodec::pebble::colblk::goldens
