// Parsing the numbers of the command line the way the originals parse them.
//
//   double fp;
//   if (!ParseJavaDouble("1.0E-5", fp)) ...   // what java.lang.Double.parseDouble accepts
//
// Cassandra takes its false-positive chance as a Java double and its counts as Java longs and
// ints, so the flags accept exactly those spellings: a number that Java would reject (or that
// has trailing junk, like "0.1x") is a usage error, never a silent prefix parse.
#pragma once

#include <cstdint>
#include <string_view>

namespace bloomcodec::tool {

// Double.parseDouble: surrounding whitespace (chars <= ' ') trimmed, optional sign, decimal
// digits with optional '.', optional exponent, optional f/F/d/D suffix, hex floats (0x1.8p3),
// "NaN" and "Infinity". Correctly rounded, like Java.
bool ParseJavaDouble(std::string_view text, double& out);
// A plain decimal (optional sign, digits, '.', exponent): no NaN, Infinity, hex or suffixes.
bool ParseDecimal(std::string_view text, double& out);
// Long.parseLong / Integer.parseInt: optional sign, decimal digits only, in range.
bool ParseInt64(std::string_view text, std::int64_t& out);
bool ParseInt32(std::string_view text, std::int32_t& out);

}  // namespace bloomcodec::tool
