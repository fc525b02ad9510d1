// verify --prometheus FILE: the run's figures in node_exporter's textfile collector format
// (internal to the command line).
//
//   BLOOMCODEC_RETURN_IF_ERROR(WritePrometheus("/var/lib/node_exporter/bloomcodec.prom", report));
//
// One gauge per figure, each with its HELP and TYPE lines, names prefixed bloomcodec_verify_:
// files by status for the whole run, and per group (a Cassandra <keyspace>/<table>, a LevelDB,
// RocksDB or Pebble database; label `group`, with its `role`) its tables, errors, warnings, keys
// checked and the fp rate a read sees (docs/cli.md, "--prometheus"). Label values are valid UTF-8
// (an invalid byte becomes U+FFFD) with \, " and newline escaped as the format asks.
#pragma once

#include <string>

#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::tool {

std::string PrometheusText(const VerifyReport& report);

// Writes PrometheusText under a temporary name in FILE's directory and renames it into place,
// so that the collector never reads half a file (its temporary name starts with '.' and does not
// end in .prom, which the collector skips).
Status WritePrometheus(const std::string& path, const VerifyReport& report);

}  // namespace bloomcodec::tool
