// Damaged SSTs: every truncation and every single-byte change of a small golden SST is either
// read (checksums off) or refused with an error naming the file and an offset; never a crash
// or a read outside the file (the sanitizer build runs this too). Also the refusals of footers
// we do not read.
#include <gtest/gtest.h>

#include <string>

#include "bloomcodec/format.h"
#include "bloomcodec/rocksdb/sst_block.h"
#include "bloomcodec/rocksdb/sst_reader.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
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
      (void)unchecked;
    }
  }
}

ByteVector WithFooter(std::uint64_t magic, std::uint32_t format_version, std::uint8_t checksum) {
  ByteVector file(200, 0);
  SstFooter f;
  f.magic = magic;
  f.format_version = format_version;
  f.checksum = static_cast<ChecksumType>(checksum);
  f.metaindex_handle = {0, 10};
  f.index_handle = {20, 10};
  AppendSstFooter(f, file);
  return file;
}

TEST(SstDamaged, NewerFormatVersionsAndOtherTableKindsAreRefusedClearly) {
  auto fv6 = DecodeSstFooter(WithFooter(kBlockBasedTableMagic, 6, 4), "fv6.sst");
  ASSERT_FALSE(fv6.ok());
  EXPECT_EQ(fv6.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(fv6.status().ToString().find("format_version 6"), std::string::npos);
  auto fv5 = DecodeSstFooter(WithFooter(kBlockBasedTableMagic, 5, 4), "fv5.sst");
  EXPECT_TRUE(fv5.ok()) << fv5.status().ToString();
  auto bad_checksum = DecodeSstFooter(WithFooter(kBlockBasedTableMagic, 5, 5), "c.sst");
  ASSERT_FALSE(bad_checksum.ok());
  EXPECT_EQ(bad_checksum.status().offset(), std::optional<std::uint64_t>(200));
  for (std::uint64_t magic : {kPlainTableMagic, kLegacyPlainTableMagic, kCuckooTableMagic}) {
    ByteVector file(200, 0);
    for (int i = 0; i < 8; ++i) file.push_back(static_cast<std::uint8_t>(magic >> (8 * i)));
    auto r = DecodeSstFooter(file, "p.sst");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status().ToString().find("block-based tables only"), std::string::npos);
  }
  // LevelDB's magic is format_version 0 with CRC-32C and the 48-byte footer.
  auto legacy = DecodeSstFooter(WithFooter(kLegacyBlockBasedTableMagic, 0, 1), "l.sst");
  ASSERT_TRUE(legacy.ok()) << legacy.status().ToString();
  EXPECT_EQ(legacy->format_version, 0u);
  EXPECT_EQ(legacy->checksum, ChecksumType::kCrc32c);
  EXPECT_EQ(legacy->size(), kLegacyFooterSize);
}

TEST(SstDamaged, CompressedSizeClaimsBeyondWhatTheBytesCanHoldAreRefusedBeforeAllocating) {
  // A ZSTD block claiming 1 GiB - 1 from 8 compressed bytes.
  ByteVector file = {0xff, 0xff, 0xff, 0xff, 0x03, 1, 2, 3, 4, 5, 6, 7};
  file.push_back(7);  // type ZSTD
  for (int i = 0; i < 4; ++i) file.push_back(0);
  SstBlockOptions o;
  o.checksum = ChecksumType::kNone;
  auto r = ReadSstBlock(file, BlockHandle{0, 12}, "z.sst", o, "data block");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), std::optional<std::uint64_t>(0));
  EXPECT_NE(r.status().ToString().find("can expand to"), std::string::npos)
      << r.status().ToString();
  // bzip2 is refused as unsupported, not as damage.
  file[12] = 3;
  auto bz = ReadSstBlock(file, BlockHandle{0, 12}, "z.sst", o, "data block");
  ASSERT_FALSE(bz.ok());
  EXPECT_EQ(bz.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace bloomcodec::rocksdb
