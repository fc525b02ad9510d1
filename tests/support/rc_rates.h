// Generators that reach a property's named cases at a fixed rate.
//
// RapidCheck scales gen::inRange, gen::arbitrary of integers and container lengths with the case
// size, which grows from 0 in the first case to the run's maximum size in the last: a choice
// drawn with inRange(0, 6) is always 0 in the early cases, and never above 3 in a run whose
// maximum size is 60. gen::element, gen::elementOf, gen::weightedElement, gen::weightedOneOf and
// gen::arbitrary<bool> ignore the size; so do the generators below. Properties draw the cases
// their name or comment promises with these, and tag them (RC_TAG), so that every run prints how
// often it reached each (docs/testing.md, "How often each property reaches its cases").
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <cstdint>

namespace bloomcodec::testing {

// A value of [lo, hi), uniform in every case whatever its size.
template <typename T>
rc::Gen<T> Uniform(T lo, T hi) {
  return rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

// true in `num` of `den` cases.
inline rc::Gen<bool> OneIn(std::size_t num, std::size_t den) {
  return rc::gen::weightedElement<bool>({{num, true}, {den - num, false}});
}

// A byte, uniform (half of them >= 0x80) whatever the case size.
inline rc::Gen<std::uint8_t> AnyByte() {
  return rc::gen::resize(100, rc::gen::arbitrary<std::uint8_t>());
}

}  // namespace bloomcodec::testing
