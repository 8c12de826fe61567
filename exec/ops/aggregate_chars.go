package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// One-byte keys: when the group keys are one or two string (or binary) columns and, in a
// batch, every value is exactly one byte long and not NULL (TPC-H Q1's l_returnflag and
// l_linestatus), each row's group is read from a direct table indexed by its key bytes,
// without packing the keys into a buffer first or hashing them. The table holds group+1 (0:
// not known yet) and is filled from the packed-key cache (aggregate_small.go): a key the
// cache does not hold yet sends the batch through the packed path, which sends it through
// the general path, which teaches the cache. A batch with another value (NULL, empty,
// longer) takes the packed path.

// charTable is the direct table of one-byte keys: index b0<<8 | b1 (one column: b0<<8). It
// takes 256 KiB, allocated the first time an aggregate uses it and not reserved against the
// query's pool (a fixed size, like the packed-key table); only the entries of the keys seen
// are ever touched.
type charTable [1 << 16]int32

// charField is a one-byte string's packed field (packChars): the validity bit and length 1
// above the byte.
const charField = uint64(1<<3|1) << 8

// assignChars is assign for one-byte keys: done is false when the batch does not qualify
// (the caller then packs the keys; the groups of included rows are then rewritten); ok is
// false when a key is not cached yet.
func (s *smallKeys) assignChars(cols []arrow.Array, groups []int32, include []bool) (done, ok bool) {
	if len(cols) > 2 {
		return false, false
	}
	var keys [2]charColumn
	for c, col := range cols {
		if !s.str[c] || s.bytes[c] != 1 || col.NullN() != 0 {
			return false, false
		}
		var fits bool
		if keys[c], fits = charValues(col); !fits {
			return false, false
		}
	}
	if s.chars == nil {
		s.chars = new(charTable)
	}
	two := len(cols) == 2
	if !two {
		keys[1] = keys[0] // read, never used: the index keeps only the first byte
	}
	known, short := s.charGroups(keys[0], keys[1], two, groups, include)
	if short {
		return false, false
	}
	if known {
		s.charBatches++
	}
	return true, known
}

// charColumn is a string column's value bytes and offsets, as charGroups reads them: row r's
// byte is bytes[r] when every value is one byte long, which is so when offs[r] - base == r
// for every r.
type charColumn struct {
	bytes []byte
	offs  []int32
	base  int32
}

// charGroups sets the group of every included row whose key bytes are a's (and b's when two),
// through the direct table, and of every other row too: its key's group when the table
// knows it, group 0 otherwise (the rows left out are not tested apart, and their keys are
// never learnt). short reports that some value of a or b is not one byte long (the groups
// are then meaningless); known is false when the key of an included row is not cached yet
// (the groups are then incomplete, and short is not computed: the caller sends the batch
// through the general path either way).
func (s *smallKeys) charGroups(a, b charColumn, two bool, groups []int32, include []bool) (known, short bool) {
	n := len(groups)
	mul := uint16(0) // the second byte's weight: 1 with two columns
	if two {
		mul = 1
	}
	var bad int32
	for r := 0; r < n; r++ {
		var miss int32
		r, miss = charRun(s.chars, a, b, mul, groups, r)
		bad |= miss
		if r == n {
			break
		}
		idx := uint16(a.bytes[r])<<8 | uint16(b.bytes[r])*mul
		g := int32(1) // left out: group 0
		if include == nil || include[r] {
			if g = s.fillChar(idx, two); g == 0 {
				return false, false // the general path takes the batch, whatever its values
			}
		}
		groups[r] = g - 1
		bad |= (a.offs[r+1] ^ (a.base + int32(r) + 1)) | (b.offs[r+1] ^ (b.base + int32(r) + 1))
	}
	return true, bad != 0
}

// charRun sets the groups of rows from r on, through the direct table, up to the first row
// whose key the table does not know yet (returned; len(groups) when there is none), and
// returns the OR of each set row's end offsets XORed with the ones one-byte values give
// (nonzero: some value is not one byte long). The loop calls nothing, so that its state
// stays in registers (charGroups handles the row it stops at).
func charRun(tbl *charTable, a, b charColumn, mul uint16, groups []int32, r int) (stop int, bad int32) {
	n := len(groups)
	ab, bb := a.bytes[:n], b.bytes[:n]
	ao, bo := a.offs[1:n+1], b.offs[1:n+1]
	endA, endB := a.base+1+int32(r), b.base+1+int32(r) // row r's end offsets
	for ; r < n; r++ {
		g := tbl[uint16(ab[r])<<8|uint16(bb[r])*mul]
		if g == 0 {
			return r, bad
		}
		bad |= (ao[r] ^ endA) | (bo[r] ^ endB)
		endA, endB = endA+1, endB+1
		groups[r] = g - 1
	}
	return n, bad
}

// fillChar looks the key of direct index idx up in the packed-key cache and records its
// group+1 in the direct table; 0 when the cache does not hold it.
func (s *smallKeys) fillChar(idx uint16, two bool) int32 {
	k := charField | uint64(idx>>8)
	if two {
		k = k<<uint(s.widths[1]) | charField | uint64(idx&0xff)
	}
	g, ok := s.lookup(k)
	if !ok {
		return 0
	}
	s.chars[idx] = g + 1
	return g + 1
}

// charValues returns a string or binary column's bytes and offsets for charGroups; fits is
// false when its bytes cannot hold one byte per row (then some value is not one byte long).
func charValues(col arrow.Array) (c charColumn, fits bool) {
	offs, ok := binaryOffsets(col)
	n := col.Len()
	bufs := col.Data().Buffers()
	if !ok || n == 0 || len(offs) < n+1 || len(bufs) < 3 || bufs[2] == nil {
		return charColumn{}, false
	}
	raw := bufs[2].Bytes()
	base := offs[0]
	if base < 0 || int(base)+n > len(raw) || offs[n]-base != int32(n) {
		return charColumn{}, false
	}
	return charColumn{bytes: raw[base : int(base)+n], offs: offs[:n+1], base: base}, true
}
