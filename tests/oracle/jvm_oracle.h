// JvmOracle: one long-lived JVM per test process that answers batches of questions about
// Cassandra 1.0's filters with Java's own types and library (tests/oracle/java).
//
//   OracleRequest request(OracleOp::kHash64);
//   for (...) { request.Bytes(key); request.I64(seed); request.EndCase(); }
//   auto answers = JvmOracle::Shared().Call(request);   // bounded by a deadline
//   OracleAnswers a(*answers);  std::int64_t h = a.I64();
//
// Protocol (all integers big-endian, as java.io.DataInput/DataOutput use them):
//   request frame   i32 payload length, payload = u8 op, i32 case count, the cases
//   response frame  i32 payload length, payload = u8 status, then the answers in case order
//                   (status 1: a modified-UTF-8 message, u16 length first, and nothing else)
// The JVM reads a whole request before it writes anything, so a batch is written in full and
// then its answer read, with poll() deadlines on both so a dead or stuck JVM fails the test
// instead of hanging it. Case encodings per op: see oracle_protocol.h.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "oracle/oracle_protocol.h"

namespace bloomcodec::testing {

class JvmOracle {
 public:
  // The process-wide oracle, started on first use from BLOOMCODEC_JAVA and BLOOMCODEC_ORACLE_JAR.
  static JvmOracle& Shared();

  JvmOracle() = default;
  ~JvmOracle();
  JvmOracle(const JvmOracle&) = delete;
  JvmOracle& operator=(const JvmOracle&) = delete;

  Status Start(const std::string& java, const std::string& jar);
  bool running() const { return pid_ > 0; }
  // True once the JVM died, stalled or could not be started; every later Call fails at once.
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }

  // Sends one batch and returns the answers' bytes (after the status byte). Fails with the JVM's
  // message on status 1, and with a clear error when the JVM died, closed its output or did not
  // answer before the deadline.
  Result<ByteVector> Call(const OracleRequest& request,
                          std::chrono::seconds timeout = std::chrono::seconds(60));

 private:
  Status WriteAll(ByteSpan bytes, std::chrono::steady_clock::time_point deadline);
  Status ReadExactly(std::uint8_t* out, std::size_t n,
                     std::chrono::steady_clock::time_point deadline);
  Status Died(const std::string& what);
  void Stop();

  pid_t pid_ = -1;
  int to_jvm_ = -1;      // the JVM's stdin
  int from_jvm_ = -1;    // the JVM's stdout
  std::string failure_;  // sticky: once the JVM is gone every call fails with this
};

}  // namespace bloomcodec::testing
