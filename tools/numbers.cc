#include "numbers.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

namespace bloomcodec::tool {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Counts the run of digits at text[pos...] and advances pos past it.
std::size_t SkipDigits(std::string_view text, std::size_t& pos, bool hex) {
  std::size_t start = pos;
  while (pos < text.size() && (hex ? IsHexDigit(text[pos]) : IsDigit(text[pos]))) ++pos;
  return pos - start;
}

// The grammar of FloatingDecimal.readJavaFormatString after the sign. Returns the length of the
// numeric part (without a type suffix) or 0 when `body` is not a Java floating-point literal.
std::size_t MatchUnsignedJavaNumber(std::string_view body, bool allow_java_extras) {
  std::size_t pos = 0;
  bool hex =
      allow_java_extras && body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  if (hex) pos = 2;
  std::size_t digits = SkipDigits(body, pos, hex);
  if (pos < body.size() && body[pos] == '.') {
    ++pos;
    digits += SkipDigits(body, pos, hex);
  }
  if (digits == 0) return 0;
  // Java requires the binary exponent of a hex literal; a decimal exponent is optional.
  char exponent_mark = hex ? 'p' : 'e';
  if (pos < body.size() && (body[pos] | 0x20) == exponent_mark) {
    ++pos;
    if (pos < body.size() && (body[pos] == '+' || body[pos] == '-')) ++pos;
    if (SkipDigits(body, pos, false) == 0) return 0;
  } else if (hex) {
    return 0;
  }
  std::size_t number_length = pos;
  // Java ignores a float/double type suffix: Double.parseDouble("0.1f") is the double 0.1.
  if (allow_java_extras && pos < body.size() &&
      std::string_view("fFdD").find(body[pos]) != std::string_view::npos) {
    ++pos;
  }
  return pos == body.size() ? number_length : 0;
}

bool ParseFloating(std::string_view text, bool java, double& out) {
  if (java) {
    // String.trim(): Java strips every char <= ' ' at both ends before parsing.
    while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
    while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
  }
  bool negative = false;
  std::string_view body = text;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (java && body == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (java && body == "Infinity") {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return true;
  }
  std::size_t length = MatchUnsignedJavaNumber(body, java);
  if (length == 0) return false;
  // strtod in the "C" locale (the tool never calls setlocale) is correctly rounded like Java,
  // and gives +-inf on overflow and the rounded subnormal or zero on underflow, as Java does.
  std::string number(negative ? "-" : "");
  number.append(body.substr(0, length));
  char* end = nullptr;
  out = std::strtod(number.c_str(), &end);
  return end == number.c_str() + number.size();
}

template <typename Int>
bool ParseInteger(std::string_view text, Int& out) {
  // Long.parseLong accepts a leading '+' as well as '-'; from_chars only knows '-'.
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || digits[0] == '+' || (digits[0] == '-' && text[0] == '+')) return false;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, out, 10);
  return ec == std::errc() && ptr == end;
}

}  // namespace

bool ParseJavaDouble(std::string_view text, double& out) { return ParseFloating(text, true, out); }
bool ParseDecimal(std::string_view text, double& out) { return ParseFloating(text, false, out); }
bool ParseInt64(std::string_view text, std::int64_t& out) { return ParseInteger(text, out); }
bool ParseInt32(std::string_view text, std::int32_t& out) { return ParseInteger(text, out); }

}  // namespace bloomcodec::tool
