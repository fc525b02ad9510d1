// Damaged SSTs: every truncation and every single-byte change of a small golden SST is either
// read (checksums off) or refused with an error naming the file and an offset inside it; never
// a crash or a read outside the file (the sanitizer build runs this too). Also the refusals of
// footers we do not read.
#include <gtest/gtest.h>

#include <string>

#include "bloomcodec/format.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {

using blocktable::AppendFooter;
using blocktable::Block;
using blocktable::BlockChecksum;
using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::ChecksumType;
using blocktable::ContextModifier;
using blocktable::DecodeFooter;
using blocktable::Footer;
using blocktable::kBlockBasedTableMagic;
using blocktable::kCuckooTableMagic;
using blocktable::kLevelDbFooterSize;
using blocktable::kLevelDbTableMagic;
using blocktable::kPlainTableFormatVersion0Magic;
using blocktable::kPlainTableMagic;
using blocktable::ReadBlock;
using blocktable::ReadBlockOptions;
using blocktable::TableFamily;

namespace {

const char kSmall[] = "rocksdb-sst/sst_ribbon_fv5_bpk10_onekey.sst";

// Everything a reader does with a file: open, walk every entry, probe.
Status ReadEverything(ByteSpan file, bool verify) {
  SstOpenOptions o;
  o.verify_checksums = verify;
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(file, "damaged.sst", o));
  BLOOMCODEC_RETURN_IF_ERROR(
      sst.ForEachEntry([](ByteSpan, ByteSpan, const BlockHandle&) { return Status(); }));
  KeyList probes;
  probes.Add(std::string_view("a"));
  probes.Add(std::string_view(""));
  std::vector<std::uint8_t> answers(probes.size());
  BLOOMCODEC_RETURN_IF_ERROR(sst.MayContainBatch(probes, answers));
  // inspect and dump read every handle the file holds (a fuzzer once found one unchecked).
  BLOOMCODEC_RETURN_IF_ERROR(FindFormat("rocksdb-sst")->Inspect(file, "damaged.sst").status());
  return FindFormat("rocksdb-sst")->Dump(file, "damaged.sst").status();
}

TEST(SstDamaged, EveryTruncationIsAnErrorWithAnOffset) {
  const ByteVector file = testing::ReadFixture(kSmall);
  ASSERT_GT(file.size(), 100u);
  for (std::size_t n = 0; n < file.size(); ++n) {
    const Status s = ReadEverything(ByteSpan(file).first(n), false);
    ASSERT_FALSE(s.ok()) << "prefix of " << n << " bytes";
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
    EXPECT_EQ(s.file(), "damaged.sst");
    EXPECT_TRUE(s.offset().has_value()) << s.ToString();
    EXPECT_LE(s.offset().value_or(0), n) << s.ToString();
  }
}

TEST(SstDamaged, EveryChangedByteIsCaughtWhenChecksumsAreVerified) {
  const ByteVector file = testing::ReadFixture(kSmall);
  ASSERT_TRUE(ReadEverything(file, true).ok());
  auto sst = SstReader::Open(file, "x");
  ASSERT_TRUE(sst.ok());
  // Every byte covered by a checksum: all blocks and trailers up to the footer.
  const std::size_t body = file.size() - sst->footer().size();
  for (std::size_t at = 0; at < file.size(); ++at) {
    for (std::uint8_t mask : {0x01, 0x80, 0xff}) {
      ByteVector damaged = file;
      damaged[at] ^= mask;
      const Status unchecked = ReadEverything(damaged, false);  // must not crash either way
      const Status checked = ReadEverything(damaged, true);
      if (!checked.ok() && checked.code() == StatusCode::kUnsupported) {
        // A changed format_version or compression type: refused as unsupported, with its byte
        // named in the message (an Unsupported status carries no offset field).
        EXPECT_NE(checked.ToString().find("byte "), std::string::npos) << checked.ToString();
      } else if (!checked.ok()) {
        EXPECT_TRUE(checked.offset().has_value()) << checked.ToString();
        EXPECT_LT(checked.offset().value_or(0), file.size());
      } else {
        // Only the footer's padding and ignored footer bits may change unnoticed.
        EXPECT_GE(at, body) << "byte " << at << " mask " << int(mask);
      }
      // Without checksums a changed handle may point anywhere; the error must still name an
      // offset inside the file (where the handle was read), not the one the handle claims.
      if (!unchecked.ok() && unchecked.offset()) {
        EXPECT_LT(*unchecked.offset(), file.size())
            << "byte " << at << " mask " << int(mask) << ": " << unchecked.ToString();
      }
    }
  }
}

ByteVector WithFooter(std::uint64_t magic, std::uint32_t format_version, std::uint8_t checksum) {
  ByteVector file(200, 0);
  Footer f;
  f.magic = magic;
  f.format_version = format_version;
  f.checksum = static_cast<ChecksumType>(checksum);
  f.metaindex_handle = {0, 10};
  f.index_handle = {20, 10};
  AppendFooter(f, file);
  return file;
}

TEST(SstDamaged, NewerFormatVersionsAndOtherTableKindsAreRefusedClearly) {
  auto fv8 =
      DecodeFooter(WithFooter(kBlockBasedTableMagic, 8, 4), "fv8.sst", TableFamily::kRocksDb);
  ASSERT_FALSE(fv8.ok());
  EXPECT_EQ(fv8.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(fv8.status().ToString().find("format_version 8"), std::string::npos);
  auto fv5 =
      DecodeFooter(WithFooter(kBlockBasedTableMagic, 5, 4), "fv5.sst", TableFamily::kRocksDb);
  EXPECT_TRUE(fv5.ok()) << fv5.status().ToString();
  auto bad_checksum =
      DecodeFooter(WithFooter(kBlockBasedTableMagic, 5, 5), "c.sst", TableFamily::kRocksDb);
  ASSERT_FALSE(bad_checksum.ok());
  EXPECT_EQ(bad_checksum.status().offset(), std::optional<std::uint64_t>(200));
  for (std::uint64_t magic :
       {kPlainTableMagic, kPlainTableFormatVersion0Magic, kCuckooTableMagic}) {
    ByteVector file(200, 0);
    for (int i = 0; i < 8; ++i) file.push_back(static_cast<std::uint8_t>(magic >> (8 * i)));
    auto r = DecodeFooter(file, "p.sst", TableFamily::kRocksDb);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status().ToString().find("block-based tables only"), std::string::npos);
  }
  // LevelDB's magic is format_version 0 with CRC-32C and the 48-byte footer.
  auto fv0 = DecodeFooter(WithFooter(kLevelDbTableMagic, 0, 1), "l.sst", TableFamily::kRocksDb);
  ASSERT_TRUE(fv0.ok()) << fv0.status().ToString();
  EXPECT_EQ(fv0->format_version, 0u);
  EXPECT_EQ(fv0->checksum, ChecksumType::kCrc32c);
  EXPECT_EQ(fv0->size(), kLevelDbFooterSize);
}

// Rewrites the block handle encoded at file[at..] so that it points past the end: its longer
// varint becomes the largest value of that length (nothing moves).
void PointHandlePastTheEnd(ByteVector& file, std::size_t at) {
  std::size_t lengths[2];
  std::size_t starts[2];
  for (int field = 0; field < 2; ++field) {
    starts[field] = at;
    lengths[field] = 1;
    while (file[at + lengths[field] - 1] & 0x80) ++lengths[field];
    at += lengths[field];
  }
  const int longer = lengths[1] > lengths[0] ? 1 : 0;
  ASSERT_LT(file.size(), std::uint64_t{1} << (7 * lengths[longer])) << "a varint too short";
  for (std::size_t i = 0; i + 1 < lengths[longer]; ++i) file[starts[longer] + i] = 0xff;
  file[starts[longer] + lengths[longer] - 1] = 0x7f;
}

// A large SST: its handles have varints long enough to reach past its end.
const char kLarge[] = "rocksdb-sst/sst_fastlocal_bloom_fv5_bpk10.sst";

// A fuzzer found these: the error named the offset the damaged handle claimed, past the end of
// the file. It must name where the handle was read.
TEST(SstDamaged, AFilterHandlePastTheEndIsNamedWhereTheMetaindexHoldsIt) {
  ByteVector file = testing::ReadFixture(kLarge);
  auto sst = SstReader::Open(file, "x");
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  const SstMetaindexEntry* filter = nullptr;
  for (const SstMetaindexEntry& e : sst->metaindex()) {
    if (e.key.starts_with("fullfilter.")) filter = &e;
  }
  ASSERT_NE(filter, nullptr);
  const std::uint64_t value_at = filter->value_at;
  ASSERT_EQ(sst->metaindex_block().contents().compression(), BlockCompression::kNone);
  ASSERT_EQ(file[value_at], filter->value[0]);
  PointHandlePastTheEnd(file, value_at);
  auto damaged = SstReader::Open(file, "damaged.sst");
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(damaged.status().offset(), std::optional<std::uint64_t>(value_at))
      << damaged.status().ToString();
  EXPECT_NE(damaged.status().ToString().find("filter block inside the file"), std::string::npos)
      << damaged.status().ToString();
}

TEST(SstDamaged, ADataBlockHandlePastTheEndIsNamedAtItsIndexEntry) {
  ByteVector file = testing::ReadFixture(kLarge);
  auto sst = SstReader::Open(file, "x");
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  const Block& index = sst->index_block();
  ASSERT_EQ(index.contents().compression(), BlockCompression::kNone);
  // The last entry that holds a whole handle: its offset is the largest.
  BlockIterator it(index, sst->index_key_order(), sst->index_value_encoding());
  ASSERT_TRUE(it.SeekToFirst().ok());
  std::uint64_t entry_at = 0;
  std::size_t value_at = 0;
  while (it.valid()) {
    if (it.shared() == 0 || !sst->index_value_is_delta_encoded()) {
      entry_at = index.contents().file_offset() + it.entry_position();
      value_at = static_cast<std::size_t>(index.contents().file_offset() +
                                          (it.value().data() - index.contents().bytes().data()));
    }
    ASSERT_TRUE(it.Next().ok());
  }
  ASSERT_GT(value_at, 0u);
  PointHandlePastTheEnd(file, value_at);
  auto damaged = SstReader::Open(file, "damaged.sst");
  ASSERT_TRUE(damaged.ok()) << damaged.status().ToString();  // data blocks are read on demand
  const Status walk =
      damaged->ForEachEntry([](ByteSpan, ByteSpan, const BlockHandle&) { return Status(); });
  ASSERT_FALSE(walk.ok());
  EXPECT_EQ(walk.code(), StatusCode::kCorrupt);
  EXPECT_EQ(walk.offset(), std::optional<std::uint64_t>(entry_at)) << walk.ToString();
  EXPECT_NE(walk.ToString().find("a block handle inside the file"), std::string::npos)
      << walk.ToString();
}

TEST(SstDamaged, CompressedSizeClaimsBeyondWhatTheBytesCanHoldAreRefusedBeforeAllocating) {
  // A ZSTD block claiming 1 GiB - 1 from 8 compressed bytes.
  ByteVector file = {0xff, 0xff, 0xff, 0xff, 0x03, 1, 2, 3, 4, 5, 6, 7};
  file.push_back(7);  // type ZSTD
  for (int i = 0; i < 4; ++i) file.push_back(0);
  ReadBlockOptions o;
  o.trailer = {TableFamily::kRocksDb, ChecksumType::kNone, 5};  // format_version 5 framing
  auto r = ReadBlock(file, BlockHandle{0, 12}, "z.sst", o, "data block");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), std::optional<std::uint64_t>(0));
  EXPECT_NE(r.status().ToString().find("can expand to"), std::string::npos)
      << r.status().ToString();
  // bzip2 is refused as unsupported, not as damage.
  file[12] = 3;
  auto bz = ReadBlock(file, BlockHandle{0, 12}, "z.sst", o, "data block");
  ASSERT_FALSE(bz.ok());
  EXPECT_EQ(bz.status().code(), StatusCode::kUnsupported);
}

// format_version 6 and 7, as RocksDB 9.7 and 10.5.1 wrote them (fixtures/rocksdb-sst/README.md).
const char* const kContextChecksumFixtures[] = {
    "rocksdb-sst/witness_fv6_rocksdb9.7_ribbon10.sst",
    "rocksdb-sst/witness_fv7_rocksdb10.5_bloom10.sst",
};

std::uint32_t LoadU32(const ByteVector& b, std::size_t at) {
  return std::uint32_t{b[at]} | std::uint32_t{b[at + 1]} << 8 | std::uint32_t{b[at + 2]} << 16 |
         std::uint32_t{b[at + 3]} << 24;
}

void StoreU32(ByteVector& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Recomputes a format_version >= 6 footer's checksum after an edit (RocksDB's rule: the footer's
// checksum type over its 53 bytes with the field zeroed, plus the context of its offset).
void ResealFooter(ByteVector& file) {
  const std::size_t at = file.size() - 53;
  StoreU32(file, at + 5, 0);
  const auto type = static_cast<ChecksumType>(file[at]);
  const std::uint32_t sum = BlockChecksum(type, ByteSpan(file).subspan(at, 52), file[at + 52]) +
                            ContextModifier(LoadU32(file, at + 9), at);
  StoreU32(file, at + 5, sum);
}

TEST(SstDamaged, ContextChecksumTablesAreReadAndEveryTruncationIsAnError) {
  for (const char* name : kContextChecksumFixtures) {
    const ByteVector file = testing::ReadFixture(name);
    ASSERT_TRUE(ReadEverything(file, true).ok()) << name;
    auto sst = SstReader::Open(file, name);
    ASSERT_TRUE(sst.ok());
    EXPECT_TRUE(sst->footer().context_checksums());
    EXPECT_NE(sst->footer().base_context_checksum, 0u);
    // The index handle is the metaindex's; the metaindex ends where the footer starts.
    EXPECT_EQ(sst->footer().metaindex_handle.offset + sst->footer().metaindex_handle.size + 5,
              file.size() - 53);
    EXPECT_GT(sst->index_handle().size, 0u);
    for (std::size_t n = 0; n < file.size(); ++n) {
      const Status s = ReadEverything(ByteSpan(file).first(n), false);
      ASSERT_FALSE(s.ok()) << name << " prefix of " << n << " bytes";
      EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
      EXPECT_LE(s.offset().value_or(n + 1), n) << s.ToString();
    }
  }
}

TEST(SstDamaged, ContextChecksumTablesCatchEveryChangedByte) {
  // The footer checksum covers the whole footer, so with checksums verified no byte at all may
  // change unnoticed (format_version 5 leaves the footer's padding unchecked).
  for (const char* name : kContextChecksumFixtures) {
    const ByteVector file = testing::ReadFixture(name);
    for (std::size_t at = 0; at < file.size(); ++at) {
      for (std::uint8_t mask : {0x01, 0xff}) {
        ByteVector damaged = file;
        damaged[at] ^= mask;
        const Status unchecked = ReadEverything(damaged, false);
        const Status checked = ReadEverything(damaged, true);
        ASSERT_FALSE(checked.ok()) << name << " byte " << at << " mask " << int(mask);
        if (checked.code() == StatusCode::kUnsupported) {
          EXPECT_NE(checked.ToString().find("byte "), std::string::npos) << checked.ToString();
        } else {
          ASSERT_TRUE(checked.offset().has_value()) << checked.ToString();
          EXPECT_LT(*checked.offset(), file.size());
        }
        if (!unchecked.ok() && unchecked.offset()) {
          EXPECT_LT(*unchecked.offset(), file.size());
        }
      }
    }
  }
}

TEST(SstDamaged, ContextChecksumFooterFieldsAreNamedAtTheirBytes) {
  const ByteVector file = testing::ReadFixture(kContextChecksumFixtures[1]);
  const std::size_t at = file.size() - 53;
  auto decode = [](const ByteVector& f) {
    return DecodeFooter(f, "fv7.sst", TableFamily::kRocksDb).status();
  };
  ASSERT_TRUE(decode(file).ok());
  {  // a byte of the 16 ignored ones: the footer checksum no longer matches
    ByteVector d = file;
    d[at + 20] ^= 1;
    const Status s = decode(d);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt);
    EXPECT_EQ(s.offset(), std::optional<std::uint64_t>(at + 5)) << s.ToString();
    EXPECT_NE(s.ToString().find("footer checksum"), std::string::npos) << s.ToString();
    ResealFooter(d);  // and resealed, RocksDB ignores them: so do we
    EXPECT_TRUE(decode(d).ok());
  }
  {  // the extended magic
    ByteVector d = file;
    d[at + 2] = 0x01;
    ResealFooter(d);
    EXPECT_EQ(decode(d).offset(), std::optional<std::uint64_t>(at + 1)) << decode(d).ToString();
  }
  {  // base context checksum 0
    ByteVector d = file;
    StoreU32(d, at + 9, 0);
    ResealFooter(d);
    EXPECT_EQ(decode(d).offset(), std::optional<std::uint64_t>(at + 9)) << decode(d).ToString();
  }
  {  // a metaindex larger than what lies before the footer
    ByteVector d = file;
    StoreU32(d, at + 13, static_cast<std::uint32_t>(at));
    ResealFooter(d);
    EXPECT_EQ(decode(d).offset(), std::optional<std::uint64_t>(at + 13)) << decode(d).ToString();
  }
  {  // the 8 checked reserved bytes: a future feature, Unsupported naming the byte
    ByteVector d = file;
    d[at + 40] = 1;
    ResealFooter(d);
    const Status s = decode(d);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported);
    EXPECT_NE(s.ToString().find("byte " + std::to_string(at + 40)), std::string::npos)
        << s.ToString();
  }
}

TEST(SstDamaged, ABlockMovedElsewhereFailsItsContextChecksum) {
  const ByteVector file = testing::ReadFixture(kContextChecksumFixtures[0]);
  auto sst = SstReader::Open(file, "fv6.sst");
  ASSERT_TRUE(sst.ok());
  const std::uint32_t base = sst->footer().base_context_checksum;
  // RocksDB's stored value: the plain block checksum plus the modifier of the block's offset.
  std::vector<BlockHandle> data;
  ASSERT_TRUE(sst->ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
                   data.push_back(h);
                   return Status();
                 })
                  .ok());
  ASSERT_FALSE(data.empty());
  const BlockHandle h = data[0];
  const std::size_t trailer = h.offset + h.size;
  EXPECT_EQ(LoadU32(file, trailer + 1),
            BlockChecksum(sst->footer().checksum, ByteSpan(file).subspan(h.offset, h.size),
                          file[trailer]) +
                ContextModifier(base, h.offset));
  // The same block and trailer one byte later (as if misplaced): its context checksum fails.
  ByteVector moved(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(h.offset));
  moved.push_back(0);
  moved.insert(moved.end(), file.begin() + static_cast<std::ptrdiff_t>(h.offset), file.end());
  const Status s = blocktable::VerifyTrailer(moved, {h.offset + 1, h.size}, "moved.sst",
                                             sst->BlockOptions().trailer, "data block");
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_EQ(s.offset(), std::optional<std::uint64_t>(trailer + 2)) << s.ToString();
  EXPECT_NE(s.ToString().find("context checksum"), std::string::npos) << s.ToString();
}

TEST(SstDamaged, FormatVersion6And7AreWrittenAndRewrittenWithContextChecksums) {
  KeyList keys;
  for (int i = 0; i < 300; ++i) keys.Add(std::string_view("k" + std::to_string(1000 + i)));
  for (std::uint32_t fv : {6u, 7u}) {
    SstWriteOptions o;
    o.format_version = fv;
    o.block_size = 512;
    auto written = WriteSst(keys, nullptr, o);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_TRUE(ReadEverything(*written, true).ok()) << fv;
    auto sst = SstReader::Open(*written, "w.sst");
    ASSERT_TRUE(sst.ok());
    EXPECT_EQ(sst->footer().format_version, fv);
    EXPECT_EQ(sst->footer().base_context_checksum, o.base_context_checksum);
  }
  // Rewriting the filter of RocksDB's own fv6 table moves blocks: their context checksums move
  // along, and the result verifies.
  const ByteVector file = testing::ReadFixture(kContextChecksumFixtures[0]);
  auto sst = SstReader::Open(file, "fv6.sst");
  ASSERT_TRUE(sst.ok());
  for (std::optional<double> bits : {std::optional<double>(4.0), std::optional<double>()}) {
    auto rewritten = RewriteSstFilter(*sst, bits);
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    EXPECT_TRUE(ReadEverything(*rewritten, true).ok())
        << ReadEverything(*rewritten, true).ToString();
  }
}

}  // namespace
}  // namespace bloomcodec::rocksdb
