// The Mojang LevelDB witness of tests/mojang: npm's leveldb-zlib (Mojang's LevelDB fork with its
// zlib compressors, raw deflate first, and a 10 bits-per-key bloom filter), installed into the
// build tree by scripts/install-deps. The test names the package's folder in LEVELDB_ZLIB.
//
//   node witness.js write DIR SEED KEYS     writes KEYS random keys (overwrites included) with
//                                           small write buffers and tables, so compactions run;
//                                           prints every key written, hex, one a line
//   node witness.js read DIR KEYS_FILE      opens DIR and gets every key; prints
//                                           "found N of M"
'use strict'
const fs = require('fs')
const { LevelDB } = require(process.env.LEVELDB_ZLIB || 'leveldb-zlib')

// A small deterministic generator (mulberry32): the same SEED writes the same database.
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

function randomBytes (next, max) {
  const b = Buffer.alloc(1 + Math.floor(next() * max))
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(next() * 256)
  return b
}

// Closing interrupts a running compaction and leaves its unfinished table behind (LevelDB deletes
// it at the next open): wait until the tables stop changing first (at most 30 s).
async function settle (dir) {
  // A compaction may delete a table between the directory read and its stat: that table is
  // listed as gone (the listing changed), never an error.
  const size = f => {
    const st = fs.statSync(dir + '/' + f, { throwIfNoEntry: false })
    return st ? st.size : 'gone'
  }
  const listing = () => fs.readdirSync(dir).filter(f => f.endsWith('.ldb'))
    .map(f => f + ':' + size(f)).sort().join(',')
  let last = listing()
  let quiet = 0
  for (let waited = 0; waited < 30000 && quiet < 1500; waited += 250) {
    await new Promise(resolve => setTimeout(resolve, 250))
    const now = listing()
    quiet = now === last ? quiet + 250 : 0
    last = now
  }
}

async function write (dir, seed, n) {
  const next = generator(seed)
  const db = new LevelDB(dir, {
    createIfMissing: true, writeBufferSize: 64 * 1024, blockSize: 1024, maxFileSize: 128 * 1024
  })
  await db.open()
  const keys = []
  for (let i = 0; i < n; i++) {
    const overwrite = keys.length > 0 && next() < 0.1
    const key = overwrite ? keys[Math.floor(next() * keys.length)] : randomBytes(next, 24)
    if (!overwrite) keys.push(key)
    // Values that deflate well, so that blocks are stored compressed (raw deflate).
    await db.put(key, Buffer.from(('value ' + Math.floor(next() * 1000) + ' ').repeat(1 + Math.floor(next() * 8))))
  }
  await settle(dir)
  await db.close()
  process.stdout.write(keys.map(k => k.toString('hex')).join('\n') + '\n')
}

async function read (dir, keysFile) {
  const db = new LevelDB(dir, { createIfMissing: false })
  await db.open()
  const keys = fs.readFileSync(keysFile, 'utf8').split('\n').filter(l => l.length > 0)
  let found = 0
  for (const hex of keys) {
    const value = await db.get(Buffer.from(hex, 'hex'))
    if (value !== null && value !== undefined) found++
  }
  await db.close()
  process.stdout.write(`found ${found} of ${keys.length}\n`)
}

const [mode, ...args] = process.argv.slice(2)
const run = mode === 'write'
  ? write(args[0], Number(args[1]), Number(args[2]))
  : mode === 'read' ? read(args[0], args[1]) : Promise.reject(new Error('usage: write|read ...'))
run.catch(e => { console.error('witness: ' + (e && e.stack ? e.stack : e)); process.exit(2) })
