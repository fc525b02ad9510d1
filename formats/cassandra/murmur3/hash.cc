#include "bloomcodec/cassandra/murmur3.h"

#include "cassandra/murmur3/hash_inline.h"

namespace bloomcodec::cassandra {

Murmur3Hash CassandraMurmur3(ByteSpan key) { return murmur3_detail::Hash(key, true); }
Murmur3Hash CanonicalMurmur3(ByteSpan key) { return murmur3_detail::Hash(key, false); }

}  // namespace bloomcodec::cassandra
