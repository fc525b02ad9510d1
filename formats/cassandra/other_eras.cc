// Which other era's reading of a Filter.db answers every key (see other_eras.h).
#include "cassandra/other_eras.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/filter_stats.h"
#include "cassandra/era_table.h"

namespace bloomcodec::cassandra {
namespace {

// The eras whose Filter.db a writer may have used instead of the version's, newest first: every
// Filter.db era of the table but 0.6, whose keys are Java Strings' bytes no other era hashes (each
// parses only when the bytes fit its layout).
const std::vector<Era>& OtherKnownEras() {
  static const std::vector<Era> eras = [] {
    std::vector<Era> all;
    for (const EraFacts& e : kEras) {
      if (e.component == "Filter.db" && Facts(e.era).hash != KeyHash::kMurmur2x32JavaString)
        all.push_back(e.era);
    }
    std::sort(all.begin(), all.end(),
              [](Era a, Era b) { return Facts(a).first_version > Facts(b).first_version; });
    return all;
  }();
  return eras;
}

// A filter that answers every one of `keys` by chance has probability fp^n; an alternative is
// named only when that is below this, so a damaged filter that a loose reading happens to
// satisfy (few keys, a full filter) names nothing.
constexpr double kChanceAllByAccident = 1e-6;

// Whether `filter` answers every key "may contain" as a real reading would, not by accident: a
// positive K, not saturated, and fp^n below kChanceAllByAccident.
bool AnswersEveryKey(const Filter& filter, const FilterKeys& keys) {
  if (filter.hash_count() == 0 || keys.count() == 0) return false;
  const FillStatistics s =
      ComputeFillStatistics(filter.bit_count(), filter.bits_set(), filter.hash_count());
  if (s.bits_set >= s.bits) return false;
  if (std::pow(s.false_positive_rate, static_cast<double>(keys.count())) >= kChanceAllByAccident) {
    return false;
  }
  return keys.AllPresent(filter);
}

}  // namespace

std::string FormatAnsweringEveryKey(ByteSpan file, Era used, const FilterKeys& keys) {
  // The 0.6 filter's keys are Java Strings' bytes, which no other era hashes.
  if (Facts(used).hash == KeyHash::kMurmur2x32JavaString) return "";
  for (Era other : OtherKnownEras()) {
    if (other == used) continue;
    bool answers = false;
    if (Facts(other).hash == KeyHash::kMurmur3) {
      Result<Murmur3Filter> f = Murmur3Filter::Parse(file, "", other);
      answers =
          f.ok() && f->CheckLookups("").ok() && !f->always_present() && AnswersEveryKey(*f, keys);
    } else if (Facts(other).hash == KeyHash::kMurmur2x32) {
      Result<LegacyFilter> f = LegacyFilter::Parse(file, "");
      answers = f.ok() && AnswersEveryKey(*f, keys);
    } else {
      Result<V10Filter> f = V10Filter::Parse(file, "");
      answers = f.ok() && AnswersEveryKey(*f, keys);
    }
    if (answers) return std::string(Facts(other).name);
  }
  return "";
}

}  // namespace bloomcodec::cassandra
