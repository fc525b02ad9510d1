// Java's Double.toString(double) as JDKs up to 18 print it.
//
// Why not the shortest round-trip digits: JDK 19 replaced the digit generation of
// Double.toString (Raffaello Giulietti's algorithm, JDK-4511638) with one that prints the
// shortest decimal that rounds back to the double. Every JDK before that - Java 6, which
// Cassandra 1.0 ran on, and JDK 17, which made our golden data - used FloatingDecimal's
// "dtoa", which sometimes prints MORE digits: integers of 2^53 and beyond keep all of their
// digits (1.8014415689351168E16, not 1.801441568935117E16), and the Steele-White style digit
// loop below stops on a symmetric half-ulp test and rounds its last digit with its own rules.
// Cassandra's refusal texts ("Unable to satisfy <fp> with ...") were printed by those JDKs, so
// this file reproduces that algorithm step by step, including its integer-width quirks; each
// quirk is marked where it is handled. The JVM of the java-oracle tests is the judge.
#include <array>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "bloomcodec/cassandra/sizing.h"

namespace bloomcodec::cassandra {
namespace {

using BigInt = boost::multiprecision::cpp_int;

constexpr int kFractionBits = 52;  // stored significand bits
constexpr std::uint64_t kHiddenBit = std::uint64_t{1} << kFractionBits;
constexpr std::uint64_t kFractionMask = kHiddenBit - 1;
constexpr int kExponentBias = 1023;

// Binary exponents for which FloatingDecimal tries its "easy" integer path.
constexpr int kMinSmallBinaryExponent = -(63 / 3);
constexpr int kMaxSmallBinaryExponent = 62;

// Bit length of 5^i as FloatingDecimal tabulates it (entry 0 is 0, not 1). It decides whether
// the digit loop runs in long or big-integer arithmetic; the two differ in their upper stop
// test (below), so the choice must be made with the same table.
constexpr std::array<int, 27> kFivePowBits = {0,  3,  5,  7,  10, 12, 14, 17, 19,
                                              21, 24, 26, 28, 31, 33, 35, 38, 40,
                                              42, 45, 47, 49, 52, 54, 56, 59, 61};

constexpr std::array<std::int64_t, 27> MakeFivePowers() {
  std::array<std::int64_t, 27> p{};
  p[0] = 1;
  for (std::size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 5;
  return p;
}
constexpr std::array<std::int64_t, 27> kFivePow = MakeFivePowers();

// The decimal digits d1 d2 ... dn and exponent e of 0.d1d2...dn * 10^e, as FloatingDecimal
// holds them before layout. Trailing zeros may be present and are printed. At most 19 digits
// are made: the digit loop stops once 10^k * (half an ulp) exceeds the scaled value.
struct JavaDigits {
  char digits[32];
  int count = 0;
  int decimal_exponent = 0;

  void Push(int digit) { digits[count++] = static_cast<char>('0' + digit); }
};

// Java long arithmetic wraps; the digit loop below relies on it (the "m overflowed" test), so
// these helpers compute in uint64_t and convert back (modular since C++20).
std::int64_t WrapMul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t WrapAdd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t WrapSub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t WrapShl(std::int64_t a, int n) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a)
                                   << (static_cast<unsigned>(n) & 63));
}

// FloatingDecimal's estimate of floor(log10(value)): a linear approximation of log10 of the
// significand around 1.5 plus binExp * log10(2), in double arithmetic in this exact order (the
// file is compiled without FMA contraction so that the rounding is Java's). The estimate may be
// one too high; the digit loop then drops a leading zero digit - or, just below a power of ten,
// keeps it, so the estimate must be the JDK's own.
int EstimateDecimalExponent(std::uint64_t fraction_bits, int binary_exponent) {
  const double significand = std::bit_cast<double>((std::uint64_t{kExponentBias} << kFractionBits) |
                                                   (fraction_bits & kFractionMask));
  const double estimate = (significand - 1.5) * 0.289529654 + 0.176091259 +
                          static_cast<double>(binary_exponent) * 0.301029995663981;
  return static_cast<int>(std::floor(estimate));
}

// The easy path for integer values below 2^63: the exact decimal digits of the integer, except
// that from 2^58 on the low floor(log10(ulp / 4)) digits are rounded off, half up. This is
// where JDK <= 18 prints more digits than the shortest representation.
void IntegerDigits(std::uint64_t value, int insignificant, JavaDigits& out) {
  int exponent = 0;
  if (insignificant != 0) {
    const std::uint64_t pow10 =
        static_cast<std::uint64_t>(kFivePow[static_cast<std::size_t>(insignificant)])
        << insignificant;
    const std::uint64_t residue = value % pow10;
    value /= pow10;
    exponent += insignificant;
    if (residue >= (pow10 >> 1)) ++value;
  }
  while (value % 10 == 0) {  // value > 0: the double was nonzero
    value /= 10;
    ++exponent;
  }
  char reversed[24];
  int n = 0;
  while (value != 0) {
    reversed[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  for (int i = n - 1; i >= 0; --i) out.digits[out.count++] = reversed[i];
  out.decimal_exponent = exponent + n;
}

// Scale factors of the digit loop: value = B / S * 10^decExp, M = half an ulp scaled like B,
// each as 5^x * 2^y.
struct Scaled {
  int b5, b2, s5, s2, m5, m2;
};

// The outcome of a digit loop: whether it stopped because the remainder came within M of the
// lower (low) or upper (high) neighbour, and the sign of 2*remainder - 10*S for the tie-break.
struct LoopEnd {
  bool low = false, high = false;
  std::int64_t low_digit_difference = 0;
};

// Java in E-notation needs a digit after the point, so there at least two digits are made:
// the stop test after the first digit is ignored. Note decExp 7 (values in [1e7, 1e8)) is not
// included although those print in E-notation.
bool ForcesSecondDigit(int dec_exp) { return dec_exp < -3 || dec_exp >= 8; }

// The digit loop in Java long arithmetic, chosen when B and 10S fit (by approximate bit
// counts). Its stop tests are b < m and b + m > 10S (strict), and an overflow of m (which grows
// by 10 each digit) stops it with both tests true.
LoopEnd LongDigitLoop(std::uint64_t fraction, const Scaled& k, int& dec_exp, JavaDigits& out) {
  std::int64_t b = WrapShl(
      WrapMul(static_cast<std::int64_t>(fraction), kFivePow[static_cast<std::size_t>(k.b5)]), k.b2);
  const std::int64_t s = WrapShl(kFivePow[static_cast<std::size_t>(k.s5)], k.s2);
  std::int64_t m = WrapShl(kFivePow[static_cast<std::size_t>(k.m5)], k.m2);
  const std::int64_t tens = WrapMul(s, 10);
  LoopEnd end;

  int q = static_cast<int>(b / s);
  b = WrapMul(10, b % s);
  m = WrapMul(m, 10);
  end.low = b < m;
  end.high = WrapAdd(b, m) > tens;
  // An overestimated exponent shows as a leading 0, dropped unless the value is within M of
  // the next power of ten - then the 0 stays and the final round-up turns it into a 1.
  if (q == 0 && !end.high) {
    --dec_exp;
  } else {
    out.Push(q);
  }
  if (ForcesSecondDigit(dec_exp)) end.high = end.low = false;
  while (!end.low && !end.high) {
    q = static_cast<int>(b / s);
    b = WrapMul(10, b % s);
    m = WrapMul(m, 10);
    if (m > 0) {
      end.low = b < m;
      end.high = WrapAdd(b, m) > tens;
    } else {
      end.low = end.high = true;
    }
    out.Push(q);
  }
  end.low_digit_difference = WrapSub(WrapShl(b, 1), tens);
  return end;
}

// The same loop in arbitrary precision, for values whose scale factors exceed 64 bits. Its
// upper stop test is b + m >= 10S: unlike the long loop, an exact tie stops it.
LoopEnd BigDigitLoop(std::uint64_t fraction, const Scaled& k, int& dec_exp, JavaDigits& out) {
  auto pow52 = [](int p5, int p2) {
    return BigInt(boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(p5))) << p2;
  };
  BigInt b = BigInt(fraction) * boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(k.b5));
  b <<= k.b2;
  const BigInt s = pow52(k.s5, k.s2);
  BigInt m = pow52(k.m5 + 1, k.m2 + 1);  // already 10 * M, like b after its first step
  const BigInt tens = pow52(k.s5 + 1, k.s2 + 1);
  LoopEnd end;

  auto next_digit = [&] {
    BigInt q, r;
    boost::multiprecision::divide_qr(b, s, q, r);
    b = r * 10;
    return static_cast<int>(q);
  };
  int q = next_digit();
  end.low = b < m;
  end.high = b + m >= tens;
  if (q == 0 && !end.high) {
    --dec_exp;
  } else {
    out.Push(q);
  }
  if (ForcesSecondDigit(dec_exp)) end.high = end.low = false;
  while (!end.low && !end.high) {
    q = next_digit();
    m *= 10;
    end.low = b < m;
    end.high = b + m >= tens;
    out.Push(q);
  }
  if (end.high && end.low) {
    const BigInt twice = b << 1;
    end.low_digit_difference = twice < tens ? -1 : (twice == tens ? 0 : 1);
  }
  return end;
}

// Adds one to the last digit. A carry out of all nines leaves "1" followed by zeros, with the
// digit count unchanged ("99" becomes "10", not "1") and the exponent one higher.
void RoundUp(JavaDigits& d) {
  int i = d.count - 1;
  while (i > 0 && d.digits[i] == '9') d.digits[i--] = '0';
  if (d.digits[i] == '9') {
    d.digits[0] = '1';
    ++d.decimal_exponent;
    return;
  }
  ++d.digits[i];
}

// FloatingDecimal's digit generation for a finite nonzero |value|.
JavaDigits Dtoa(std::uint64_t bits) {
  JavaDigits out;
  std::uint64_t fraction = bits & kFractionMask;
  int binary_exponent = static_cast<int>((bits >> kFractionBits) & 0x7ff);
  int significant_bits;
  if (binary_exponent == 0) {
    // Subnormal: normalized so the top bit sits where the hidden bit would; half an ulp is
    // still 2^-1075, expressed through a smaller significant-bit count.
    const int leading_zeros = std::countl_zero(fraction);
    const int shift = leading_zeros - (63 - kFractionBits);
    fraction <<= shift;
    binary_exponent = 1 - shift;
    significant_bits = 64 - leading_zeros;
  } else {
    fraction |= kHiddenBit;
    significant_bits = kFractionBits + 1;
  }
  binary_exponent -= kExponentBias;

  const int tail_zeros = std::countr_zero(fraction);
  const int fraction_bits = kFractionBits + 1 - tail_zeros;  // significant bits of the significand
  const int tiny_bits =
      std::max(0, fraction_bits - binary_exponent - 1);  // bits right of the point

  if (binary_exponent >= kMinSmallBinaryExponent && binary_exponent <= kMaxSmallBinaryExponent &&
      tiny_bits == 0) {
    // An integer below 2^63 (the JDK's long fast path; fractions always take the loop).
    int insignificant = 0;
    if (binary_exponent > significant_bits) {
      // The digits of 2^p after the first, p = binExp - significantBits - 1 (0..8 here, since
      // binExp <= 62); p 0 and 1 count as 0 either way.
      for (std::uint64_t half_ulp = std::uint64_t{1} << (binary_exponent - significant_bits - 1);
           half_ulp >= 10; half_ulp /= 10) {
        ++insignificant;
      }
    }
    const std::uint64_t value = binary_exponent >= kFractionBits
                                    ? fraction << (binary_exponent - kFractionBits)
                                    : fraction >> (kFractionBits - binary_exponent);
    IntegerDigits(value, insignificant, out);
    return out;
  }

  int dec_exp = EstimateDecimalExponent(fraction, binary_exponent);
  Scaled k;
  k.b5 = std::max(0, -dec_exp);
  k.b2 = k.b5 + tiny_bits + binary_exponent;
  k.s5 = std::max(0, dec_exp);
  k.s2 = k.s5 + tiny_bits;
  k.m5 = k.b5;
  k.m2 = k.b2 - significant_bits;

  fraction >>= tail_zeros;
  k.b2 -= fraction_bits - 1;
  const int common = std::min(k.b2, k.s2);
  k.b2 -= common;
  k.s2 -= common;
  k.m2 -= common;
  // For a power of two the lower neighbour is only a quarter ulp away, yet the stop test stays
  // symmetric: M is halved for both sides.
  if (fraction_bits == 1) k.m2 -= 1;
  if (k.m2 < 0) {
    k.b2 -= k.m2;
    k.s2 -= k.m2;
    k.m2 = 0;
  }

  // Approximate bit counts of B and 10S pick the arithmetic; the choice matters (see the loops).
  auto five_bits = [](int p5) {
    return p5 < static_cast<int>(kFivePowBits.size()) ? kFivePowBits[static_cast<std::size_t>(p5)]
                                                      : p5 * 3;
  };
  const int b_bits = fraction_bits + k.b2 + five_bits(k.b5);
  const int ten_s_bits = k.s2 + 1 + five_bits(k.s5 + 1);
  // (FloatingDecimal also has a 32-bit variant of the loop, which doubles never reach: after the
  // scaling above B2 >= significantBits + 1 - fractionBits, so B has 54 bits or more for normal
  // values, and subnormals have B5 >= 307. Only floats take it.)
  LoopEnd end;
  if (b_bits < 64 && ten_s_bits < 64) {
    end = LongDigitLoop(fraction, k, dec_exp, out);
  } else {
    end = BigDigitLoop(fraction, k, dec_exp, out);
  }
  out.decimal_exponent = dec_exp + 1;

  // The last digit: up when only the upper test stopped the loop; when both did, by the
  // remainder against half of 10S, a tie going to an even last digit.
  if (end.high) {
    if (!end.low || end.low_digit_difference > 0 ||
        (end.low_digit_difference == 0 && ((out.digits[out.count - 1] - '0') & 1) != 0)) {
      RoundUp(out);
    }
  }
  return out;
}

// Java's layout of 0.d1...dn * 10^e: plain for e in [-2, 7] (with at least one digit after
// the point), otherwise d1.d2...dnE(e-1).
std::string Layout(bool negative, const JavaDigits& d) {
  std::string s = negative ? "-" : "";
  const std::string digits(d.digits, static_cast<std::size_t>(d.count));
  const int e = d.decimal_exponent;
  if (e > 0 && e < 8) {
    if (d.count <= e) {
      s += digits + std::string(static_cast<std::size_t>(e - d.count), '0') + ".0";
    } else {
      s += digits.substr(0, static_cast<std::size_t>(e)) + "." +
           digits.substr(static_cast<std::size_t>(e));
    }
  } else if (e <= 0 && e > -3) {
    s += "0." + std::string(static_cast<std::size_t>(-e), '0') + digits;
  } else {
    s += digits.substr(0, 1) + "." + (d.count > 1 ? digits.substr(1) : "0") + "E" +
         std::to_string(e - 1);
  }
  return s;
}

}  // namespace

std::string JavaDoubleToString(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(d);
  return Layout(std::signbit(d), Dtoa(bits & ~(std::uint64_t{1} << 63)));
}

}  // namespace bloomcodec::cassandra
