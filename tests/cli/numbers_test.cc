// The number flags read numbers exactly as Java's Double.parseDouble / Long.parseLong do.
#include "numbers.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "support/rc_rates.h"

namespace bloomcodec::tool {
namespace {

double Parsed(const char* text) {
  double value = -12345.0;
  EXPECT_TRUE(ParseJavaDouble(text, value)) << text;
  return value;
}

TEST(JavaDouble, AcceptsWhatDoubleParseDoubleAccepts) {
  EXPECT_EQ(Parsed("0.01"), 0.01);
  EXPECT_EQ(Parsed("1e-3"), 0.001);
  EXPECT_EQ(Parsed("1.0E-5"), 1.0e-5);  // Double.toString's spelling
  EXPECT_EQ(Parsed("4.9E-324"), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(Parsed("1."), 1.0);
  EXPECT_EQ(Parsed(".5"), 0.5);
  EXPECT_EQ(Parsed("+0.5"), 0.5);
  EXPECT_EQ(Parsed("0.1f"), 0.1);  // the suffix is ignored: still the double nearest 0.1
  EXPECT_EQ(Parsed("2d"), 2.0);
  EXPECT_EQ(Parsed(" 0.25\t"), 0.25);  // String.trim()
  EXPECT_EQ(Parsed("0x1.8p1"), 3.0);
  EXPECT_EQ(Parsed("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Parsed("1e-400"), 0.0);
  EXPECT_EQ(Parsed("Infinity"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Parsed("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(Parsed("NaN")));
  double negative_zero = Parsed("-0.0");
  EXPECT_EQ(negative_zero, 0.0);
  EXPECT_TRUE(std::signbit(negative_zero));
}

TEST(JavaDouble, RejectsWhatJavaRejects) {
  for (const char* bad : {"", " ", "0.1x", "x", ".", "e5", "1e", "1e+", "--1", "+-1", "nan", "inf",
                          "infinity", "0x1.8", "1,5", "1 5", "0.1ff", "NaNd"}) {
    double value;
    EXPECT_FALSE(ParseJavaDouble(bad, value)) << "'" << bad << "'";
  }
}

TEST(Decimal, PlainDecimalsOnly) {
  double value;
  EXPECT_TRUE(ParseDecimal("7.5", value));
  EXPECT_EQ(value, 7.5);
  EXPECT_TRUE(ParseDecimal("10", value));
  EXPECT_EQ(value, 10.0);
  for (const char* bad : {"NaN", "Infinity", "0x10p0", "10f", " 10", "10x", ""}) {
    EXPECT_FALSE(ParseDecimal(bad, value)) << bad;
  }
}

TEST(Integers, AsLongParseLongAndIntegerParseInt) {
  std::int64_t v64;
  EXPECT_TRUE(ParseInt64("-9223372036854775808", v64));
  EXPECT_EQ(v64, std::numeric_limits<std::int64_t>::min());
  EXPECT_TRUE(ParseInt64("+42", v64));
  EXPECT_EQ(v64, 42);
  for (const char* bad :
       {"", "-", "+", "9223372036854775808", "1.0", "1e3", " 1", "0x10", "+-1", "--1"}) {
    EXPECT_FALSE(ParseInt64(bad, v64)) << bad;
  }
  std::int32_t v32;
  EXPECT_TRUE(ParseInt32("-2147483648", v32));
  EXPECT_EQ(v32, std::numeric_limits<std::int32_t>::min());
  EXPECT_FALSE(ParseInt32("2147483648", v32));
}

// The bits of a finite double: a normal one (any sign, exponent and mantissa) in 6 cases of 10,
// a subnormal one in 2, and in 2 an edge (zeros, the smallest and largest subnormal and normal,
// 1 and its neighbours). Arbitrary 64-bit values would not do: RapidCheck scales them with the
// case size, and below full size their exponent bits are zero (mostly subnormals).
rc::Gen<std::uint64_t> GenFiniteDoubleBits() {
  using testing::Uniform;
  const auto compose = [](std::uint64_t sign, std::uint64_t exponent, std::uint64_t mantissa) {
    return sign << 63 | exponent << 52 | mantissa;
  };
  const auto mantissa = Uniform<std::uint64_t>(0, std::uint64_t{1} << 52);
  return rc::gen::weightedOneOf<std::uint64_t>(
      {{6, rc::gen::apply(compose, Uniform<std::uint64_t>(0, 2), Uniform<std::uint64_t>(1, 2047),
                          mantissa)},
       {2, rc::gen::apply(compose, Uniform<std::uint64_t>(0, 2), rc::gen::just<std::uint64_t>(0),
                          Uniform<std::uint64_t>(1, std::uint64_t{1} << 52))},
       {2, rc::gen::element<std::uint64_t>(
               0, std::uint64_t{1} << 63, 1, (std::uint64_t{1} << 52) - 1, std::uint64_t{1} << 52,
               0x7fefffffffffffffULL, 0x3ff0000000000000ULL, 0x3fefffffffffffffULL,
               0x3ff0000000000001ULL, 0xffefffffffffffffULL)}});
}

// Any finite double printed with 17 significant digits reads back as itself (correct rounding).
RC_GTEST_PROP(JavaDouble, RoundTripsEveryPrintedDouble, ()) {
  const std::uint64_t bits = *GenFiniteDoubleBits();
  const std::uint64_t exponent = bits >> 52 & 0x7ff;
  RC_TAG(exponent == 0 ? (bits << 1 == 0 ? "zero" : "subnormal") : "normal");
  double value;
  std::memcpy(&value, &bits, sizeof value);
  RC_PRE(std::isfinite(value));
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  double parsed;
  RC_ASSERT(ParseJavaDouble(text, parsed));
  RC_ASSERT(std::memcmp(&parsed, &value, sizeof value) == 0);
}

}  // namespace
}  // namespace bloomcodec::tool
