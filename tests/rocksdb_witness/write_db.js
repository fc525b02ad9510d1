// Writes a RocksDB database with the keys of a file, through a real RocksDB from npm:
//   node write_db.js <node_modules> <engine> <db dir> <keys file> [option=value ...]
// engine: "rocksdb9" (@nxtedition/rocksdb, RocksDB 9.7) or "rocksdb10" (rocksdb-native, RocksDB
// 10.5.1). The keys file holds one key a line in hex ("-": the empty key); every key is put once
// (value: 64 compressible bytes derived from the key). Options:
//   filter=bloom:BITS | ribbon:BITS     the filter policy (default bloom:10); Ribbon with
//                                       bloom_before_level -1 (Ribbon on every level)
//   format_version=6|7                  rocksdb10 only (rocksdb9 always writes 6)
//   optimize_filters_for_memory=0|1     default 0
//   compression=0|1                     rocksdb9 only: zstd with a 16 KiB dictionary
//   prefix=rocksdb.FixedPrefix.N ...    rocksdb9 only: the prefix extractor
//   compaction=level|universal          rocksdb9 only (default universal; level leaves levels 0
//                                       and 1 uncompressed)
//   memtable=BYTES                      rocksdb9: memtableMemoryBudget (write buffer = 1/4),
//                                       rocksdb10: writeBufferSize (default: small, so that the
//                                       keys make several SSTs and compactions make levels)
//   block_size=BYTES                    the data block size (default 4096 rocksdb9, 8192 rocksdb10)
// When the writes are done, no flush or compaction runs and the tables stay the same, reads the
// live tables of the current version as RocksDB sees it (property rocksdb.sstables), closes the
// database and prints one JSON line {"engine":..., "sst_files": N (the .sst files in the
// directory), "live": [[level, file number], ...]}.
//   read=1                              instead of writing: opens the database DIR (written with
//                                       the same engine and options) as its writer opens it, reads
//                                       the live tables, Gets every key of the keys file and, for
//                                       each, the absent key KEY + "#absent", closes it and prints
//                                       {"engine", "live", "found", "of", "absent_found",
//                                       "filter_bytes" (RocksDB's sum of the live tables' filter
//                                       sizes, rocksdb.aggregated-table-properties), "cached_filters"
//                                       (rocksdb9: filter blocks in the block cache, which
//                                       cacheIndexAndFilterBlocks fills when a table opens) and
//                                       "useful"/"true_positive" (rocksdb10: statistics tickers
//                                       rocksdb.bloom.filter.useful and .full.true.positive)}.
//                                       Neither binding takes paranoid_checks or
//                                       verify_sst_unique_id_in_manifest: RocksDB's defaults
//                                       (both true) stand, as the OPTIONS file the open writes
//                                       records.
'use strict'
const fs = require('fs')
const path = require('path')

const [modulesArg, engine, dir, keysFile, ...rest] = process.argv.slice(2)
const modules = modulesArg && path.resolve(modulesArg)
if (!modules || !engine || !dir || !keysFile) {
  console.error('usage: write_db.js <node_modules> <rocksdb9|rocksdb10> <dir> <keys> [opt=v ...]')
  process.exit(2)
}
const opts = {}
for (const a of rest) {
  const i = a.indexOf('=')
  if (i < 0) throw new Error('option without "=": ' + a)
  opts[a.slice(0, i)] = a.slice(i + 1)
}
const keys = fs.readFileSync(keysFile, 'utf8').split('\n').filter((l) => l.length > 0)
  .map((h) => h === '-' ? Buffer.alloc(0) : Buffer.from(h, 'hex'))
const filter = (opts.filter || 'bloom:10').split(':')
const bits = Number(filter[1])
const ofm = opts.optimize_filters_for_memory === '1'

// The live tables of rocksdb.sstables ("--- level L --- version# V ---" headers, then one line
// " NUMBER:SIZE[seqs][keys in hex](...)" a table), as [[level, number], ...].
function liveTables (text) {
  const live = []
  let level = -1
  for (const line of String(text).split('\n')) {
    const header = /^--- level (\d+) --- /.exec(line)
    if (header) { level = Number(header[1]); continue }
    const table = /^ (\d+):(\d+)\[/.exec(line)
    if (table) {
      if (level < 0) throw new Error('rocksdb.sstables: a table before any level: ' + line)
      live.push([level, Number(table[1])])
    } else if (line.length > 0) {
      throw new Error('rocksdb.sstables: unexpected line: ' + line)
    }
  }
  return live
}

// Waits until RocksDB runs no flush or compaction and its live tables stay the same for three
// polls in a row (0.3 s), then returns them. rocksdb.compaction-pending is not waited for: with
// universal compaction it can stay 1 while the picker finds nothing to do.
async function settledLiveTables (getProperty) {
  const busy = ['rocksdb.num-running-compactions', 'rocksdb.num-running-flushes',
    'rocksdb.mem-table-flush-pending']
  let last = null
  let same = 0
  for (let i = 0; same < 3; ++i) {
    if (i >= 600) throw new Error('RocksDB still busy or changing its tables after 60 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
    const values = []
    for (const p of busy) values.push(String(await getProperty(p)))
    const tables = String(await getProperty('rocksdb.sstables'))
    same = values.every((v) => v === '0') && tables === last ? same + 1 : 0
    last = tables
  }
  return liveTables(last)
}
let live = null

// Compressible values (RocksDB keeps a block uncompressed unless it shrinks by 1/8).
function valueOf (key, i) {
  return Buffer.from(('value ' + (i % 97) + ' of ' + key.toString('hex') + '; ').repeat(8).slice(0, 64))
}

function rocksdb9Options () {
  const options = {
    createIfMissing: opts.read !== '1',
    cacheIndexAndFilterBlocks: opts.read === '1',
    memtableMemoryBudget: Number(opts.memtable || 256 * 1024),
    compression: opts.compression === '1',
    optimizeFiltersForMemory: ofm,
    blockSize: Number(opts.block_size || 4096),
    filterPolicy: filter[0] === 'ribbon' ? `ribbonfilter:${bits}:-1` : `bloomfilter:${bits}:false`,
    keyEncoding: 'buffer',
    valueEncoding: 'buffer'
  }
  if (opts.prefix) options.prefixExtractor = opts.prefix
  // The binding sizes the memtable only with a compaction style. level: zstd from level 2 on
  // only; universal: every table compressed as `compression` says.
  options.compaction = opts.compaction || 'universal'
  return options
}

async function rocksdb9 () {
  const { RocksLevel } = require(path.join(modules, '@nxtedition/rocksdb'))
  const options = rocksdb9Options()
  if (opts.read === '1') return readBack(new RocksLevel(dir, options), () => {}, 'rocksdb9')
  const db = new RocksLevel(dir, options)
  await db.open()
  const chunk = 200
  for (let i = 0; i < keys.length; i += chunk) {
    await db.batch(keys.slice(i, i + chunk).map((k, j) => ({ type: 'put', key: k, value: valueOf(k, i + j) })))
  }
  await db.close()
  // The binding has no flush: reopening recovers the WAL into a level-0 table, so that every
  // key ends up in some SST.
  const again = new RocksLevel(dir, options)
  await again.open()
  live = await settledLiveTables((p) => again.getProperty(p))
  await again.close()
}

async function rocksdb10 () {
  const RocksDB = require(path.join(modules, 'rocksdb-native'))
  const { BloomFilterPolicy, RibbonFilterPolicy } = require(path.join(modules, 'rocksdb-native/lib/filter-policy'))
  const db = new RocksDB(dir, {
    tableFormatVersion: Number(opts.format_version || 6),
    optimizeFiltersForMemory: ofm,
    tableBlockSize: Number(opts.block_size || 8192),
    filterPolicy: filter[0] === 'ribbon' ? new RibbonFilterPolicy(bits, -1) : new BloomFilterPolicy(bits),
    writeBufferSize: Number(opts.memtable || 64 * 1024),
    createIfMissing: opts.read !== '1',
    enableStatistics: opts.read === '1'
  })
  if (opts.read === '1') return readBack(db, () => db.ready(), 'rocksdb10')
  await db.ready()
  // The first half compacted into the bottom level, the rest flushed as L0 tables of 500 keys.
  const half = Math.floor(keys.length / 2)
  const put = async (from, to) => {
    const w = db.write()
    for (let i = from; i < to; ++i) w.put(keys[i], valueOf(keys[i], i))
    await w.flush()
    await db.flush()
  }
  await put(0, half)
  await db.compactRange()
  for (let i = half; i < keys.length; i += 500) await put(i, Math.min(i + 500, keys.length))
  live = await settledLiveTables((p) => db.getProperty(p))
  // RocksDB 10's close() does not settle; the tables are flushed, the WAL is empty.
  db.close()
}

// The `ticker COUNT : N` of RocksDB's statistics text, or null.
function ticker (text, name) {
  const m = new RegExp(name.replace(/\./g, '\\.') + ' COUNT : (\\d+)').exec(text)
  return m ? Number(m[1]) : null
}

// read=1: the database as its writer opens it (`ready` opens rocksdb10's; rocksdb9's opens
// below), every key got, the figures printed (see the top).
async function readBack (db, ready, name) {
  if (name === 'rocksdb9') await db.open(); else await ready()
  const property = async (p) => String(await db.getProperty(p))
  const result = { engine: name, live: liveTables(await property('rocksdb.sstables')), found: 0, of: keys.length, absent_found: 0 }
  // @nxtedition/rocksdb rejects a missing key, rocksdb-native gives null.
  const get = async (k) => {
    try {
      const v = await db.get(k)
      return v !== null && v !== undefined
    } catch (err) {
      if (err && err.code === 'LEVEL_NOT_FOUND') return false
      throw err
    }
  }
  for (const k of keys) {
    if (await get(k)) result.found++
    if (await get(Buffer.concat([k, Buffer.from('#absent')]))) result.absent_found++
  }
  const size = /filter block size=(\d+)/.exec(await property('rocksdb.aggregated-table-properties'))
  result.filter_bytes = size ? Number(size[1]) : null
  if (name === 'rocksdb9') {
    const cached = /FilterBlock\((\d+),/.exec(await property('rocksdb.block-cache-entry-stats'))
    result.cached_filters = cached ? Number(cached[1]) : 0
  } else {
    const stats = await property('rocksdb.options-statistics')
    result.useful = ticker(stats, 'rocksdb.bloom.filter.useful')
    result.true_positive = ticker(stats, 'rocksdb.bloom.filter.full.true.positive')
  }
  // RocksDB 10's close() does not settle (as after writing); the process exit releases it.
  if (name === 'rocksdb9') await db.close(); else db.close()
  console.log(JSON.stringify(result))
  process.exit(0)
}

;(engine === 'rocksdb9' ? rocksdb9 : engine === 'rocksdb10' ? rocksdb10 : () => {
  throw new Error('engine must be rocksdb9 or rocksdb10')
})().then(() => {
  const n = fs.readdirSync(dir).filter((f) => f.endsWith('.sst')).length
  console.log(JSON.stringify({ engine, sst_files: n, live }))
}).catch((err) => {
  console.error(err && err.stack ? err.stack : String(err))
  process.exit(1)
})
