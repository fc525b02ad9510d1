// The kernels of formats/cassandra/filter_kernels.h a test runs: every one this CPU supports,
// reported with the production default and those the CPU cannot run (support/cpu_kernels.h).
#pragma once

#include <string>
#include <vector>

#include "cassandra/filter_kernels.h"
#include "support/cpu_kernels.h"

namespace bloomcodec::cassandra {

inline const char* KernelName(FilterKernel k) {
  return k == FilterKernel::kPortable ? "portable" : "avx512";
}

inline std::string WhyNotSupported(FilterKernel k) {
  return k == FilterKernel::kAvx512 ? "the CPU lacks avx512f or avx512dq" : "unsupported";
}

// Every kernel this CPU supports, reported (once per test) with those it does not support.
inline std::vector<FilterKernel> KernelsToTest() {
  std::vector<FilterKernel> out;
  std::vector<bloomcodec::testing::KernelRun> runs;
  for (FilterKernel k : kAllFilterKernels) {
    const bool supported = FilterKernelSupported(k);
    if (supported) out.push_back(k);
    runs.push_back({KernelName(k), supported, WhyNotSupported(k)});
  }
  bloomcodec::testing::ReportKernels("filter_kernels", "formats/cassandra/filter_kernels.h", runs,
                                     KernelName(BestFilterKernel()));
  return out;
}

// For the properties that run the filters as they are, on the production default only.
inline void ReportDefaultKernel() {
  std::vector<bloomcodec::testing::KernelRun> runs;
  for (FilterKernel k : kAllFilterKernels) {
    const bool chosen = k == BestFilterKernel();
    runs.push_back({KernelName(k), chosen,
                    FilterKernelSupported(k)
                        ? "not the default here; the FilterKernels and WordRounds tests run it"
                        : WhyNotSupported(k)});
  }
  bloomcodec::testing::ReportKernels("filter_kernels", "formats/cassandra/filter_kernels.h", runs,
                                     KernelName(BestFilterKernel()));
}

}  // namespace bloomcodec::cassandra
