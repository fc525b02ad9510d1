// inspect / dump / undump of a RocksDB SST (private to the library).
//
// Like a LevelDB table dump, an SST dump carries the structural facts AND the whole file as
// base64 (data and index blocks cannot be rebuilt from a filter); undump refuses a dump whose
// facts no longer match its bytes.
#pragma once

#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/format.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

Result<Document> InspectSst(ByteSpan file, std::string_view source);
Result<Document> DumpSst(ByteSpan file, std::string_view source);
Result<ByteVector> UndumpSst(const Document& dump, std::string_view source);

}  // namespace bloomcodec::rocksdb
