// The Node.js writers of the kill tests (tests/crash): RocksDB 9.7 (@nxtedition/rocksdb), RocksDB
// 10.5.1 (rocksdb-native) and Mojang's LevelDB (leveldb-zlib), installed into build/npm by
// scripts/install-deps.
//   node churn.js <node_modules> <rocksdb9|rocksdb10|mojang> churn DIR SEED
//       opens (or creates) DIR and writes, deletes and compacts until it is killed
//   node churn.js <node_modules> <rocksdb9|rocksdb10|mojang> reopen DIR
//       opens DIR as the writer opens it, reads every key, closes it; prints "ok N"
'use strict'
const path = require('path')

const [modules, engine, mode, dir, seedArg] = process.argv.slice(2)

// mulberry32: the same seed writes the same keys.
function generator (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const key = (n) => Buffer.from('key' + String(n).padStart(8, '0'))
const value = (i, next) => Buffer.from(String.fromCharCode(97 + i % 26).repeat(40 + Math.floor(next() * 160)))

// Each engine: open(), put(k, v), del(k), compact(lo, hi) (or nothing), count(), close().
function rocksdb9 () {
  const { RocksLevel } = require(path.join(modules, '@nxtedition/rocksdb'))
  const db = new RocksLevel(dir, {
    createIfMissing: true, memtableMemoryBudget: 128 * 1024, compaction: 'level',
    blockSize: 1024, filterPolicy: 'bloomfilter:10:false', keyEncoding: 'buffer', valueEncoding: 'buffer'
  })
  return {
    open: () => db.open(),
    put: (k, v) => db.put(k, v),
    del: (k) => db.del(k),
    compact: async () => {},
    count: async () => { let n = 0; for await (const _ of db.keys()) n++; return n }, // eslint-disable-line no-unused-vars
    close: () => db.close()
  }
}

function rocksdb10 () {
  const RocksDB = require(path.join(modules, 'rocksdb-native'))
  const { BloomFilterPolicy } = require(path.join(modules, 'rocksdb-native/lib/filter-policy'))
  const db = new RocksDB(dir, { tableBlockSize: 1024, filterPolicy: new BloomFilterPolicy(10), writeBufferSize: 32 * 1024 })
  return {
    open: () => db.ready(),
    put: (k, v) => db.put(k, v),
    del: (k) => db.delete(k),
    compact: (lo, hi) => db.compactRange(lo, hi),
    count: async () => { let n = 0; for await (const _ of db.iterator({})) n++; return n }, // eslint-disable-line no-unused-vars
    close: () => db.close()
  }
}

function mojang () {
  const { LevelDB } = require(path.join(modules, 'leveldb-zlib'))
  const db = new LevelDB(dir, { createIfMissing: true, writeBufferSize: 32 * 1024, blockSize: 1024, maxFileSize: 16 * 1024 })
  return {
    open: () => db.open(),
    put: (k, v) => db.put(k, v),
    del: (k) => db.delete(k),
    compact: (lo, hi) => db.compactRange(lo, hi),
    count: async () => { let n = 0; for await (const _ of db) n++; return n }, // eslint-disable-line no-unused-vars
    close: () => db.close()
  }
}

async function main () {
  const make = { rocksdb9, rocksdb10, mojang }[engine]
  if (!make || !dir || (mode !== 'churn' && mode !== 'reopen')) {
    throw new Error('usage: churn.js <node_modules> <rocksdb9|rocksdb10|mojang> churn DIR SEED | reopen DIR')
  }
  const db = make()
  await db.open()
  if (mode === 'reopen') {
    const n = await db.count()
    await db.close()
    console.log('ok ' + n)
    return
  }
  const next = generator(Number(seedArg))
  for (let i = 0; ; i++) {
    const k = key(Math.floor(next() * 200000))
    if (i % 7 === 0) await db.del(k); else await db.put(k, value(i, next))
    if (i % 3000 === 2999) {
      const a = Math.floor(next() * 200000)
      await db.compact(key(a), key(a + 40000))
    }
  }
}

main().catch((e) => { console.error('churn: ' + (e && e.stack ? e.stack : e)); process.exit(2) })
