// One benchmark binary: our code and the originals side by side, in one run.
//
//   bloomcodec_bench [google benchmark flags] [--jvm=N1,N2,...] [--jvm_out=FILE]
//
// --jvm runs the JVM program (CassandraBench.java: Cassandra 1.0's BloomFilter and 3.0 - 5.0's
// Murmur3 BloomFilter on the JDK) for
// the given key counts after the C++ benchmarks, and writes its JSON lines to --jvm_out (or
// stdout). The JVM times itself after warming up, so start-up and JIT are not counted.
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/sizing.h"

namespace {

bool RunJvm(const std::string& counts, const std::string& out_path) {
  std::string specs;
  std::stringstream in(counts);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const long long n = std::stoll(item);
    auto spec = bloomcodec::cassandra::SizeForBucketsPerElement(
        n, bloomcodec::cassandra::kDefaultBucketsPerElement);
    if (!spec.ok()) return false;
    specs.append(" ").append(std::to_string(n)).append(":");
    specs.append(std::to_string(spec->hash_count)).append(":");
    specs.append(std::to_string(spec->word_count));
    // The 3.0 - 5.0 filter as their SSTable writer sizes it: getFilter(N, 0.01), the default
    // bloom_filter_fp_chance.
    auto murmur3 = bloomcodec::cassandra::SizeMurmur3Filter(n, 0.01);
    if (!murmur3.ok()) return false;
    specs.append(" m3:").append(std::to_string(n)).append(":");
    specs.append(std::to_string(murmur3->hash_count)).append(":");
    specs.append(std::to_string(murmur3->word_count));
  }
  // 1e8 keys of 16 bytes are 1.6 GB in one byte[], plus two copies of a 190 MB filter.
  const std::string command = std::string(BLOOMCODEC_JAVA) + " -Xms5g -Xmx5g -cp " +
                              BLOOMCODEC_BENCH_JAR + " bloomcodec.bench.CassandraBench " +
                              bloomcodec::bench::ScratchDir() + specs;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  std::FILE* out = out_path.empty() ? stdout : std::fopen(out_path.c_str(), "w");
  char line[1024];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::fputs(line, out);
    std::fflush(out);
    std::fprintf(stderr, "jvm: %s", line);
  }
  if (out != stdout) std::fclose(out);
  return pclose(pipe) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string jvm_counts, jvm_out;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--jvm=", 6) == 0) {
      jvm_counts = argv[i] + 6;
    } else if (std::strncmp(argv[i], "--jvm_out=", 10) == 0) {
      jvm_out = argv[i] + 10;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  bloomcodec::bench::RegisterLevelDbBenchmarks();
  bloomcodec::bench::RegisterCassandraBenchmarks();
  bloomcodec::bench::RegisterCassandraMurmur3Benchmarks();
  bloomcodec::bench::RegisterRocksDbBenchmarks();
  bloomcodec::bench::RegisterLoadBenchmarks();
  bloomcodec::bench::RegisterMemoryBenchmarks();
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  bloomcodec::bench::DropDataset();
  if (!jvm_counts.empty() && !RunJvm(jvm_counts, jvm_out)) {
    std::fprintf(stderr, "the JVM benchmark failed\n");
    return 1;
  }
  return 0;
}
