// The Pebble rewrite's own proof and its read-back (formats/lsmrepair/pebble_transaction.h): the
// rewrite reads a table's data blocks once and asks the new filter, in the rewritten bytes, for
// every key they hold; the read-back reads no data block and holds the rewritten table's index to
// the old table's data blocks. Both are fed tables of tests/pebble/table_builder.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lsmrepair/pebble_transaction.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"

namespace bloomcodec::repair_test {
namespace {

using pebble::testing::PebbleEntry;
using pebble::testing::PebbleTableSpec;
using pebble::testing::PrefixedEntries;

ByteVector RowTable(int rows, bool two_level = false) {
  PebbleTableSpec spec;
  spec.version = 4;
  spec.two_level = two_level;
  return pebble::testing::BuildPebbleTable(PrefixedEntries("k", rows), spec);
}

// The file the transaction writes for a rewrite: the kept prefix of `old`, then the tail.
ByteVector Assembled(const ByteVector& old, const lsmrepair::TableRewrite& r) {
  ByteVector out(old.begin(), old.begin() + static_cast<std::ptrdiff_t>(r.kept_prefix));
  out.insert(out.end(), r.tail.begin(), r.tail.end());
  return out;
}

TEST(PebbleTableCheck, ARewriteReadsBackAndItsFilterHoldsEveryKey) {
  for (const bool two_level : {false, true}) {
    SCOPED_TRACE(two_level ? "two-level index" : "one-level index");
    const ByteVector old = RowTable(500, two_level);
    lsmrepair::TableToRepair t;
    t.path = "000007.sst";
    Result<std::optional<lsmrepair::TableRewrite>> r = lsmrepair::PebbleFilterRewrite(14)(t, old);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->has_value()) << "14 bits per key is not the table's 10";
    EXPECT_EQ((*r)->entries, 500u);
    const ByteVector fresh = Assembled(old, **r);
    EXPECT_TRUE(lsmrepair::PebbleTableCheck()(t, old, fresh).ok());
    // The new filter, read as Pebble reads it, at 14 bits per key and holding each key.
    Result<pebble::PebbleTable> table = pebble::PebbleTable::Open(fresh, t.path);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_TRUE(table->filter().bloom);
    EXPECT_GE(table->filter().bloom->bit_count(), 500u * 14);
    const Result<KeyList> keys = pebble::PebbleFilterKeys(*table);
    ASSERT_TRUE(keys.ok());
    std::vector<std::uint8_t> answers(keys->size());
    table->MayContainBatch(*keys, answers);
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 1), 500);
  }
}

TEST(PebbleTableCheck, AnIndexNamingOtherDataBlocksOrADamagedTailIsRefused) {
  const ByteVector old = RowTable(500);
  lsmrepair::TableToRepair t;
  t.path = "000007.sst";
  const lsmrepair::TableCheckFn check = lsmrepair::PebbleTableCheck();
  // A sound table of one key more: its last data block is longer, or there is one more.
  const Status other = check(t, old, RowTable(501));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.ToString().find("data block"), std::string::npos) << other.ToString();
  EXPECT_NE(other.ToString().find("000007.sst (rewritten)"), std::string::npos);
  // A rewrite with one byte of its tail (the new filter, first after the data) flipped.
  Result<std::optional<lsmrepair::TableRewrite>> r = lsmrepair::PebbleFilterRewrite(14)(t, old);
  ASSERT_TRUE(r.ok() && r->has_value());
  ByteVector fresh = Assembled(old, **r);
  fresh[(*r)->kept_prefix + 20] ^= 0x01;
  EXPECT_FALSE(check(t, old, fresh).ok());
}

}  // namespace
}  // namespace bloomcodec::repair_test
