// The goleveldb oracle of the differential tests (tests/goleveldb): goleveldb itself, from
// Debian's golang-github-syndtr-goleveldb-dev, built in GOPATH mode at build time.
//
//	oracle db DIR SEED KEYS BITS_PER_KEY BLOCK_SIZE none|snappy
//	    writes a database of KEYS random keys (random bytes, overwrites and deletes included)
//	    with small write buffers and tables, so that compactions make several levels; prints
//	    the number of tables on each level as goleveldb sees them (before it closes the
//	    database, opens it again and closes it: journals flushed, obsolete ones removed).
//	oracle filter BITS_PER_KEY KEYS_FILE PROBES_FILE
//	    prints the filter goleveldb's generator builds from the keys (hex), then its Contains
//	    answer for every probe as one line of 0 and 1.
//	oracle contains FILTERS_FILE PROBES_FILE
//	    for every filter (hex, one a line), one line of Contains answers for every probe.
//	oracle sstables DIR
//	    opens the database read-only (nothing compacts, nothing is written) and prints
//	    goleveldb's own view of its live tables, DB.GetProperty("leveldb.sstables"), as one
//	    "LEVEL NUMBER" line per table.
//	oracle same ORIG_DIR COPY_DIR SEED
//	    as recheck, without rebuilding COPY_DIR's MANIFEST, and COPY_DIR opened as a writer opens
//	    it (its MANIFEST replayed, a new one written) but compacting nothing.
//	oracle hold DIR
//	    opens the database (goleveldb takes its LOCK) and keeps it open until standard input
//	    ends; prints "open" once it is.
//	oracle churn DIR SEED
//	    opens (or creates) the database and writes, deletes and compacts random ranges until it
//	    is killed (the kill tests of tests/crash); returns only on an error (exit 2).
//	oracle reopen DIR
//	    opens the database as churn's application opens it (its filter and sizes; goleveldb's
//	    default strict flags, so the MANIFEST is read without StrictManifest), reads every key,
//	    closes it; prints "ok".
//	oracle recheck ORIG_DIR COPY_DIR SEED
//	    reads every live key and value of ORIG_DIR (read-only), rebuilds COPY_DIR's MANIFEST from
//	    its tables (leveldb.RecoverFile: the tables there were rewritten, their sizes changed),
//	    then opens COPY_DIR read-only with a filter that counts goleveldb's calls of Contains and
//	    Gets every key (its value must be ORIG_DIR's) and random absent keys. Prints
//	    "keys N found N contains C negatives X tables T" (T: tables goleveldb sees in COPY_DIR).
//
// Key files hold one key a line in hex ("-" is the empty key).
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "oracle: "+format+"\n", args...)
	os.Exit(2)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fail("not an integer: %q", s)
	}
	return n
}

func readHexLines(path string) [][]byte {
	f, err := os.Open(path)
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if line == "-" {
			out = append(out, []byte{})
			continue
		}
		b, err := hex.DecodeString(line)
		if err != nil {
			fail("%s: %v", path, err)
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		fail("%s: %v", path, err)
	}
	return out
}

type buffer struct{ b []byte }

func (w *buffer) Alloc(n int) []byte {
	off := len(w.b)
	w.b = append(w.b, make([]byte, n)...)
	return w.b[off:]
}
func (w *buffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *buffer) WriteByte(c byte) error      { w.b = append(w.b, c); return nil }

func answers(f filter.Filter, bits []byte, probes [][]byte) string {
	var sb strings.Builder
	for _, p := range probes {
		if f.Contains(bits, p) {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}

func randomKey(r *rand.Rand) []byte {
	k := make([]byte, 1+r.Intn(24))
	r.Read(k)
	return k
}

func writeDb(dir string, seed int64, n, bpk, blockSize int, compression string) {
	o := &opt.Options{
		Filter:              filter.NewBloomFilter(bpk),
		BlockSize:           blockSize,
		WriteBuffer:         32 * 1024,
		CompactionTableSize: 32 * 1024,
		CompactionTotalSize: 16 * 1024,
	}
	switch compression {
	case "none":
		o.Compression = opt.NoCompression
	case "snappy":
		o.Compression = opt.SnappyCompression
	default:
		fail("compression: none or snappy, not %q", compression)
	}
	db, err := leveldb.OpenFile(dir, o)
	if err != nil {
		fail("%v", err)
	}
	r := rand.New(rand.NewSource(seed))
	var written [][]byte
	for i := 0; i < n; i++ {
		var key []byte
		switch {
		case len(written) > 0 && r.Intn(10) == 0: // overwrite: several versions of a key
			key = written[r.Intn(len(written))]
		default:
			key = randomKey(r)
			written = append(written, key)
		}
		value := make([]byte, r.Intn(64))
		r.Read(value)
		if err := db.Put(key, value, nil); err != nil {
			fail("%v", err)
		}
		if len(written) > 0 && r.Intn(50) == 0 {
			if err := db.Delete(written[r.Intn(len(written))], nil); err != nil {
				fail("%v", err)
			}
		}
	}
	// Push what the memtable holds into tables, then report the levels goleveldb sees.
	if err := db.CompactRange(util.Range{Limit: []byte{0}}); err != nil {
		fail("%v", err)
	}
	stats, err := db.GetProperty("leveldb.stats")
	if err != nil {
		fail("%v", err)
	}
	if err := db.Close(); err != nil {
		fail("%v", err)
	}
	// Opened once more, goleveldb flushes what its journals still hold into a table and removes
	// the journals it no longer needs: every live key is then in a table.
	if db, err = leveldb.OpenFile(dir, o); err != nil {
		fail("%v", err)
	}
	if err := db.Close(); err != nil {
		fail("%v", err)
	}
	fmt.Print(stats)
}

func churnOptions() *opt.Options {
	return &opt.Options{
		Filter:              filter.NewBloomFilter(10),
		BlockSize:           1024,
		WriteBuffer:         32 * 1024,
		CompactionTableSize: 16 * 1024,
		CompactionTotalSize: 16 * 1024,
	}
}

// Writes until killed: random keys and values, deletes, a compaction of a random range every
// few thousand writes.
func churn(dir string, seed int64) {
	db, err := leveldb.OpenFile(dir, churnOptions())
	if err != nil {
		fail("%v", err)
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; ; i++ {
		key := []byte(fmt.Sprintf("key%08d", r.Intn(200000)))
		if i%7 == 0 {
			err = db.Delete(key, nil)
		} else {
			err = db.Put(key, []byte(strings.Repeat(string(rune('a'+i%26)), 40+r.Intn(160))), nil)
		}
		if err != nil {
			fail("%v", err)
		}
		if i%3000 == 2999 {
			a := r.Intn(200000)
			rg := util.Range{Start: []byte(fmt.Sprintf("key%08d", a)),
				Limit: []byte(fmt.Sprintf("key%08d", a+40000))}
			if err := db.CompactRange(rg); err != nil {
				fail("%v", err)
			}
		}
	}
}

// Opens the database as churn's application does (the tables its recovery writes get the same
// filter; Strict stays goleveldb's default) and reads it all.
func reopen(dir string) {
	db, err := leveldb.OpenFile(dir, churnOptions())
	if err != nil {
		fail("open: %v", err)
	}
	it := db.NewIterator(nil, nil)
	for it.Next() {
	}
	it.Release()
	if err := it.Error(); err != nil {
		fail("read: %v", err)
	}
	if err := db.Close(); err != nil {
		fail("close: %v", err)
	}
	fmt.Println("ok")
}

// goleveldb's own view of the live tables: "LEVEL NUMBER" lines, read-only (no compaction).
func printSSTables(dir string) {
	db, err := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true})
	if err != nil {
		fail("%v", err)
	}
	defer db.Close()
	view, err := db.GetProperty("leveldb.sstables")
	if err != nil {
		fail("%v", err)
	}
	level := -1
	for _, line := range strings.Split(view, "\n") {
		if _, err := fmt.Sscanf(line, "--- level %d ---", &level); err == nil {
			continue
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		if level < 0 {
			fail("a table before any level in %q", view)
		}
		fmt.Printf("%d %d\n", level, atoi(line[:colon]))
	}
}

// A filter that answers as goleveldb's bloom filter and counts how often goleveldb asks it.
type countingFilter struct {
	filter.Filter
	calls, negatives int
}

func (f *countingFilter) Contains(bits, key []byte) bool {
	f.calls++
	ok := f.Filter.Contains(bits, key)
	if !ok {
		f.negatives++
	}
	return ok
}

// Every live key and value of a database, read-only.
func liveKeys(dir string) map[string][]byte {
	src, err := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true})
	if err != nil {
		fail("%v", err)
	}
	want := map[string][]byte{}
	it := src.NewIterator(nil, nil)
	for it.Next() {
		want[string(it.Key())] = append([]byte{}, it.Value()...)
	}
	it.Release()
	if err := it.Error(); err != nil {
		fail("%v", err)
	}
	src.Close()
	return want
}

// No compaction may replace the rewritten tables before they are read. (Journals left in the
// directory become tables of goleveldb's own, with its filter.)
func quietOptions(f filter.Filter, readOnly bool) *opt.Options {
	return &opt.Options{
		Filter:                 f,
		ReadOnly:               readOnly,
		CompactionL0Trigger:    1 << 20,
		WriteL0SlowdownTrigger: 1 << 21,
		WriteL0PauseTrigger:    1 << 22,
		DisableSeeksCompaction: true,
	}
}

func recheck(orig, copyDir string, seed int64) {
	want := liveKeys(orig)
	rec, err := leveldb.RecoverFile(copyDir, quietOptions(filter.NewBloomFilter(10), false))
	if err != nil {
		fail("recover %s: %v", copyDir, err)
	}
	if err := rec.Close(); err != nil {
		fail("%v", err)
	}
	checkKeys(copyDir, want, seed, true)
}

// Opens copyDir (read-only, or as a writer does: its MANIFEST replayed and rolled) with a
// filter that counts goleveldb's calls of Contains, and Gets every key of want (each must have
// its value) and random absent keys.
func checkKeys(copyDir string, want map[string][]byte, seed int64, readOnly bool) {
	counter := &countingFilter{Filter: filter.NewBloomFilter(10)}
	db, err := leveldb.OpenFile(copyDir, quietOptions(counter, readOnly))
	if err != nil {
		fail("%v", err)
	}
	defer db.Close()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	found := 0
	for _, k := range keys {
		v, err := db.Get([]byte(k), nil)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle: key %x: %v\n", k, err)
			continue
		}
		if string(v) != string(want[k]) {
			fmt.Fprintf(os.Stderr, "oracle: key %x: another value\n", k)
			continue
		}
		found++
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 2000; i++ {
		k := randomKey(r)
		if _, present := want[string(k)]; present {
			continue
		}
		if _, err := db.Get(k, nil); err != leveldb.ErrNotFound {
			fail("absent key %x: %v", k, err)
		}
	}
	view, err := db.GetProperty("leveldb.sstables")
	if err != nil {
		fail("%v", err)
	}
	tables := 0
	for _, line := range strings.Split(view, "\n") {
		if c := strings.IndexByte(line, ':'); c > 0 && !strings.HasPrefix(line, "---") {
			tables++
		}
	}
	fmt.Printf("keys %d found %d contains %d negatives %d tables %d\n", len(keys), found,
		counter.calls, counter.negatives, tables)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: oracle db|filter|contains|sstables|recheck|same|hold|churn|reopen ...")
	}
	switch os.Args[1] {
	case "db":
		if len(os.Args) != 8 {
			fail("usage: oracle db DIR SEED KEYS BITS_PER_KEY BLOCK_SIZE none|snappy")
		}
		writeDb(os.Args[2], int64(atoi(os.Args[3])), atoi(os.Args[4]), atoi(os.Args[5]),
			atoi(os.Args[6]), os.Args[7])
	case "filter":
		if len(os.Args) != 5 {
			fail("usage: oracle filter BITS_PER_KEY KEYS_FILE PROBES_FILE")
		}
		f := filter.NewBloomFilter(atoi(os.Args[2]))
		g := f.NewGenerator()
		for _, k := range readHexLines(os.Args[3]) {
			g.Add(k)
		}
		var b buffer
		g.Generate(&b)
		fmt.Println(hex.EncodeToString(b.b))
		fmt.Println(answers(f, b.b, readHexLines(os.Args[4])))
	case "contains":
		if len(os.Args) != 4 {
			fail("usage: oracle contains FILTERS_FILE PROBES_FILE")
		}
		f := filter.NewBloomFilter(10) // Contains uses the k stored in each filter
		probes := readHexLines(os.Args[3])
		for _, bits := range readHexLines(os.Args[2]) {
			fmt.Println(answers(f, bits, probes))
		}
	case "sstables":
		if len(os.Args) != 3 {
			fail("usage: oracle sstables DIR")
		}
		printSSTables(os.Args[2])
	case "recheck":
		if len(os.Args) != 5 {
			fail("usage: oracle recheck ORIG_DIR COPY_DIR SEED")
		}
		recheck(os.Args[2], os.Args[3], int64(atoi(os.Args[4])))
	case "same":
		if len(os.Args) != 5 {
			fail("usage: oracle same ORIG_DIR COPY_DIR SEED")
		}
		checkKeys(os.Args[3], liveKeys(os.Args[2]), int64(atoi(os.Args[4])), false)
	case "churn":
		if len(os.Args) != 4 {
			fail("usage: oracle churn DIR SEED")
		}
		churn(os.Args[2], int64(atoi(os.Args[3])))
	case "reopen":
		if len(os.Args) != 3 {
			fail("usage: oracle reopen DIR")
		}
		reopen(os.Args[2])
	case "hold":
		if len(os.Args) != 3 {
			fail("usage: oracle hold DIR")
		}
		db, err := leveldb.OpenFile(os.Args[2], nil)
		if err != nil {
			fail("%v", err)
		}
		fmt.Println("open")
		bufio.NewReader(os.Stdin).ReadByte() // until standard input ends
		db.Close()
	default:
		fail("unknown mode %q", os.Args[1])
	}
}
