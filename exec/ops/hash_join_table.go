package ops

import (
	"context"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/sync/errgroup"
)

// flatIndex is the hash index of a join's build side when every key is an integer-like
// column (integers, dates, times, timestamps, durations): the keys are widened to int64
// and hashed into flat open-addressing tables instead of encoded into map keys. The build
// is partitioned on the hash's top bits, one table per partition, so several goroutines
// insert at once without sharing a slot; chains of build rows with the same hash go through
// hashTable.next. With one key the hash is a bijection of the key (equal hashes are equal
// keys); with several, probes compare the keys of every candidate.
type flatIndex struct {
	keys  [][]int64 // with several keys, per key column: the build rows' values
	parts []flatPart
	pbits uint // log2(len(parts))
	// unique is set when no two build rows share a hash: every chain is one row long, so
	// probes need not follow hashTable.next (a key join on a primary key).
	unique bool
	// dense, when set, replaces parts: one key whose values span a narrow range.
	dense *denseIndex
}

// flatPart is one partition: linear probing over slots whose head is a build row + 1
// (0: empty). len(hashes) is a power of two.
type flatPart struct {
	hashes  []uint64
	heads   []int32
	used    int
	chained bool // some hash holds more than one build row
	pbits   uint // partition bits, skipped by slot
	shift   uint // 64 - log2(len(hashes))
}

// hashMul is an odd 64-bit constant (2^64 / golden ratio): multiplying by it is a bijection
// that spreads consecutive keys over the top bits.
const hashMul = 0x9E3779B97F4A7C15

// flatKeyType reports whether a key column of type t can go into a flatIndex.
func flatKeyType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16,
		arrow.UINT32, arrow.UINT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION:
		return true
	}
	return false
}

// int64Values widens the values of a flatKeyType column into dst (reused); NULL slots
// hold whatever the column stores there.
func int64Values(col arrow.Array, dst []int64) []int64 {
	n := col.Len()
	if cap(dst) < n {
		dst = make([]int64, n)
	}
	dst = dst[:n]
	switch c := col.(type) {
	case *array.Int64:
		copy(dst, c.Int64Values())
	case *array.Int32:
		widenInt64(dst, c.Int32Values())
	case *array.Int16:
		widenInt64(dst, c.Int16Values())
	case *array.Int8:
		widenInt64(dst, c.Int8Values())
	case *array.Uint64:
		widenInt64(dst, c.Uint64Values())
	case *array.Uint32:
		widenInt64(dst, c.Uint32Values())
	case *array.Uint16:
		widenInt64(dst, c.Uint16Values())
	case *array.Uint8:
		widenInt64(dst, c.Uint8Values())
	case *array.Date32:
		widenInt64(dst, c.Date32Values())
	case *array.Date64:
		widenInt64(dst, c.Date64Values())
	case *array.Time32:
		widenInt64(dst, c.Time32Values())
	case *array.Time64:
		widenInt64(dst, c.Time64Values())
	case *array.Timestamp:
		widenInt64(dst, c.TimestampValues())
	case *array.Duration:
		widenInt64(dst, c.DurationValues())
	}
	return dst
}

func widenInt64[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](dst []int64, src []T) {
	for i, v := range src {
		dst[i] = int64(v)
	}
}

// hashKeys sets h[i] to the hash of row i's keys.
func hashKeys(keys [][]int64, h []uint64) {
	for i := range h {
		h[i] = uint64(keys[0][i]) * hashMul
	}
	for _, k := range keys[1:] {
		for i := range h {
			x := h[i] ^ uint64(k[i])
			h[i] = bits.RotateLeft64(x*hashMul, 29) ^ x>>31
		}
	}
}

// newFlatIndex indexes the rows of keyCols whose keys are all valid (the others are in
// nullRows), linking rows of equal hash through next. It uses up to workers goroutines.
func newFlatIndex(ctx context.Context, keyCols []arrow.Array, next []int32, isNull []bool, workers int) (*flatIndex, error) {
	n := len(next)
	ix := &flatIndex{keys: make([][]int64, len(keyCols))}
	for k, c := range keyCols {
		ix.keys[k] = int64Values(c, nil)
	}
	if len(ix.keys) == 1 {
		if d, chained := newDenseIndex(ix.keys[0], next, isNull); d != nil { // hash_join_dense.go
			return &flatIndex{dense: d, unique: !chained}, nil
		}
	}
	hashes := make([]uint64, n)
	hashKeys(ix.keys, hashes)
	if len(ix.keys) == 1 {
		ix.keys = nil // one key's hash is the key: probes compare nothing
	}
	for workers > 1 && n/workers < 1<<16 {
		workers /= 2 // small sides: one goroutine
	}
	ix.pbits = uint(bits.Len(uint(max(workers, 1))) - 1)
	ix.parts = make([]flatPart, 1<<ix.pbits)
	if len(ix.parts) == 1 {
		ix.parts[0].insertAll(hashes, next, isNull, 0, 0)
		ix.unique = !ix.parts[0].chained
		return ix, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for p := range ix.parts {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			ix.parts[p].insertAll(hashes, next, isNull, ix.pbits, uint64(p))
			return nil
		})
	}
	err := g.Wait()
	ix.unique = true
	for _, p := range ix.parts {
		ix.unique = ix.unique && !p.chained
	}
	return ix, err
}

// insertAll inserts, in row order, the rows whose hash's top pbits bits equal part.
func (p *flatPart) insertAll(hashes []uint64, next []int32, isNull []bool, pbits uint, part uint64) {
	p.pbits = pbits
	p.grow(max(1024, 1<<bits.Len(uint(len(hashes)>>(pbits+2)))))
	for i, h := range hashes {
		if (isNull != nil && isNull[i]) || pbits > 0 && h>>(64-pbits) != part {
			continue
		}
		if 2*(p.used+1) > len(p.hashes) {
			p.grow(growSize(p.used, i+1, len(hashes), len(p.hashes)))
		}
		p.insert(h, int32(i), next)
	}
}

// growSize is the next table size of a partition holding used distinct hashes (filling
// size slots) after seen of all rows: at least twice size, and enough for the distinct
// hashes the rows not yet seen would add at the rate seen so far. A build side of unique
// keys (orders' 730k keys in TPC-H q21) then grows about once instead of once per doubling;
// the estimate never exceeds what all rows being distinct would need.
func growSize(used, seen, rows, size int) int {
	est := int(int64(used+1) * int64(rows) / int64(max(seen, 1)))
	size *= 2
	for size < 2*est && size < 2*rows {
		size *= 2
	}
	return size
}

// insert makes row the head of hash h's chain.
func (p *flatPart) insert(h uint64, row int32, next []int32) {
	mask := uint64(len(p.hashes) - 1)
	for s := p.slot(h); ; s = (s + 1) & mask {
		head := p.heads[s]
		if head == 0 {
			p.hashes[s], p.heads[s] = h, row+1
			next[row] = -1
			p.used++
			return
		}
		if p.hashes[s] == h {
			next[row] = head - 1
			p.heads[s] = row + 1
			p.chained = true
			return
		}
	}
}

// slot is the first slot for hash h: the top bits below the partition bits.
func (p *flatPart) slot(h uint64) uint64 {
	return h << p.pbits >> p.shift
}

// grow rehashes into size slots (a power of two, larger than used).
func (p *flatPart) grow(size int) {
	if size <= len(p.hashes) {
		return
	}
	old, oldHeads := p.hashes, p.heads
	p.hashes, p.heads = make([]uint64, size), make([]int32, size)
	p.shift = uint(64 - bits.Len(uint(size)-1))
	mask := uint64(size - 1)
	for i, head := range oldHeads {
		if head == 0 {
			continue
		}
		h := old[i]
		s := p.slot(h)
		for p.heads[s] != 0 {
			s = (s + 1) & mask
		}
		p.hashes[s], p.heads[s] = h, head
	}
}

// lookup returns the head build row of hash h's chain, or -1.
func (ix *flatIndex) lookup(h uint64) int32 {
	p := &ix.parts[0]
	if ix.pbits > 0 {
		p = &ix.parts[h>>(64-ix.pbits)]
	}
	mask := uint64(len(p.hashes) - 1)
	for s := p.slot(h); ; s = (s + 1) & mask {
		head := p.heads[s]
		if head == 0 {
			return -1
		}
		if p.hashes[s] == h {
			return head - 1
		}
	}
}

// sameKeys reports whether probe row i (keys in probe) has build row b's keys; only
// needed with several keys (one key's hash is the key).
func (ix *flatIndex) sameKeys(probe [][]int64, i int, b int32) bool {
	for k, col := range ix.keys {
		if col[b] != probe[k][i] {
			return false
		}
	}
	return true
}

// bytes is the memory the index holds.
func (ix *flatIndex) bytes() int64 {
	n := int64(0)
	for _, k := range ix.keys {
		n += int64(cap(k)) * 8
	}
	for _, p := range ix.parts {
		n += int64(len(p.hashes)) * 12
	}
	if ix.dense != nil {
		n += ix.dense.bytes()
	}
	return n
}
