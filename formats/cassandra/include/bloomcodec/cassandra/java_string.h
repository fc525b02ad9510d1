// Keys as Java Strings, the way Cassandra 0.4 - 0.7 beta (SSTable versions before c) hashed them
// in their bloom filters: the String's UTF-16 code units, encoded by String.getBytes("UTF-16").
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::u16string s, cassandra::DecodeUtf8Text(AsBytes("k1"), "key 1"));
//   ByteVector hashed = cassandra::JavaUtf16Bytes(s);   // fe ff 00 6b 00 31
//
// Keys reach the command line as bytes, so they are first made Strings:
// * text given by the user (--keys, build, probe) is UTF-8 and decoded strictly (no overlong
//   forms, no encoded surrogates, nothing above U+10FFFF, no cut-off sequence);
// * keys read from an Index.db of those versions are what DataOutput.writeUTF wrote (modified
//   UTF-8: a 2-byte length before, NUL as c0 80, a supplementary character as its two
//   surrogates, 3 bytes each), decoded as DataInput.readUTF decodes them.
// A key that is not valid text in its encoding is refused, never guessed at.
//
// Compatibility contract: JavaUtf16Bytes(s) equals s.getBytes("UTF-16") of a JDK: nothing for
// the empty String, else the byte order mark fe ff and every code unit big-endian, where a
// surrogate that is not half of a (high, low) pair is replaced by U+FFFD (the encoder's
// replacement). DecodeModifiedUtf8 accepts exactly what readUTF accepts (it does not reject
// overlong forms either) and gives the same code units.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

// Strict UTF-8 to UTF-16 code units. InvalidArgument naming `what`, the byte offset within the
// text and the byte found when `text` is not UTF-8.
Result<std::u16string> DecodeUtf8Text(ByteSpan text, std::string_view what);

// DataInput.readUTF's decoding of `encoded` (the bytes after the 2-byte length). The failure is
// InvalidArgument naming `what` and the offset within `encoded` (readUTF's
// UTFDataFormatException).
Result<std::u16string> DecodeModifiedUtf8(ByteSpan encoded, std::string_view what);

// UTF-16 code units as UTF-8 text. A surrogate that is not half of a (high, low) pair has no
// UTF-8 form: with `replace_unpaired` it becomes U+FFFD (what String.getBytes("UTF-8") writes),
// without it the answer is nullopt.
std::optional<std::string> Utf8FromUtf16(std::u16string_view s, bool replace_unpaired);
// String.getBytes("UTF-16").
ByteVector JavaUtf16Bytes(std::u16string_view s);
void AppendJavaUtf16Bytes(std::u16string_view s, ByteVector& out);

// Each key of `utf8_keys` decoded as UTF-8 text and encoded as String.getBytes("UTF-16"): the
// bytes the 0.6 filter hashes. The first key that is not UTF-8 is InvalidArgument naming
// `source`, the key's number (from 1), its bytes in hex and why.
Result<KeyList> JavaStringKeysFromUtf8(const KeyList& utf8_keys, std::string_view source);

}  // namespace bloomcodec::cassandra

namespace bloomcodec::cassandra {

// The keys of an Index.db of a version before c, as stored (each the bytes writeUTF wrote after
// its length), made the bytes the 0.6 filter hashed: readUTF's String, String.getBytes("UTF-16").
// Entries are a u16 length, the key, an i64 position, so key i starts at the sum of the earlier
// entries' sizes plus 2. Appends to `out`; the first key readUTF would refuse is Corrupt naming
// `source` and its offset in the file (the keys before it are in `out`). A part of the file
// (streaming) gives the offset of its first entry and how many keys precede it.
Status JavaStringKeysFromIndex(const KeyList& stored, std::string_view source, KeyList& out,
                               std::uint64_t first_offset = 0, std::uint64_t first_number = 0);

// The same Strings as UTF-8 text (what the cassandra-0.6 codec takes: probe / convert --index);
// a String with an unpaired surrogate has no UTF-8 form and is Corrupt at its entry, like a key
// readUTF refuses.
Status Utf8KeysFromIndex(const KeyList& stored, std::string_view source, KeyList& out);

}  // namespace bloomcodec::cassandra
