// The goleveldb oracle of the differential tests (tests/goleveldb): goleveldb itself, from
// Debian's golang-github-syndtr-goleveldb-dev, built in GOPATH mode at build time.
//
//	oracle db DIR SEED KEYS BITS_PER_KEY BLOCK_SIZE none|snappy
//	    writes a database of KEYS random keys (random bytes, overwrites and deletes included)
//	    with small write buffers and tables, so that compactions make several levels; prints
//	    the number of tables on each level as goleveldb sees them.
//	oracle filter BITS_PER_KEY KEYS_FILE PROBES_FILE
//	    prints the filter goleveldb's generator builds from the keys (hex), then its Contains
//	    answer for every probe as one line of 0 and 1.
//	oracle contains FILTERS_FILE PROBES_FILE
//	    for every filter (hex, one a line), one line of Contains answers for every probe.
//
// Key files hold one key a line in hex ("-" is the empty key).
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
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
func (w *buffer) WriteByte(c byte) error        { w.b = append(w.b, c); return nil }

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
	fmt.Print(stats)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: oracle db|filter|contains ...")
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
	default:
		fail("unknown mode %q", os.Args[1])
	}
}
