package ops

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
)

// HyperLogLog parameters for approx_count_distinct: 2^hllP registers per group once a
// group has more than hllSparseMax distinct hashes; below that the hashes are kept
// exactly (so small counts are exact, unlike DuckDB's, which estimates from the start).
const (
	hllP         = 12
	hllM         = 1 << hllP
	hllSparseMax = 1024
)

// hllAcc is approx_count_distinct(x): NULLs are skipped; a group without values gives 0.
type hllAcc struct {
	sparse []map[uint64]struct{}
	dense  [][]uint8
	buf    []byte
}

func (h *hllAcc) resize(n int) {
	h.sparse, h.dense = grow(h.sparse, n), grow(h.dense, n)
}

func (h *hllAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	enc, err := kernel.NewKeyEncoder(arg)
	if err != nil {
		return err
	}
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		h.buf = enc(h.buf[:0], i)
		h.add(g, hash64(h.buf))
	}
	return nil
}

func (h *hllAcc) add(g int32, x uint64) {
	if h.dense[g] != nil {
		hllInsert(h.dense[g], x)
		return
	}
	if h.sparse[g] == nil {
		h.sparse[g] = map[uint64]struct{}{}
	}
	h.sparse[g][x] = struct{}{}
	if len(h.sparse[g]) > hllSparseMax {
		regs := make([]uint8, hllM)
		for y := range h.sparse[g] {
			hllInsert(regs, y)
		}
		h.dense[g], h.sparse[g] = regs, nil
	}
}

func hllInsert(regs []uint8, x uint64) {
	idx := x >> (64 - hllP)
	rank := uint8(bits.LeadingZeros64(x<<hllP|1<<(hllP-1)) + 1)
	if rank > regs[idx] {
		regs[idx] = rank
	}
}

// hllEstimate is the HyperLogLog estimate with linear counting for small cardinalities.
func hllEstimate(regs []uint8) int64 {
	sum, zeros := 0.0, 0
	for _, r := range regs {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	m := float64(hllM)
	est := 0.7213 / (1 + 1.079/m) * m * m / sum
	if est <= 2.5*m && zeros > 0 {
		est = m * math.Log(m/float64(zeros))
	}
	return int64(math.Round(est))
}

func (h *hllAcc) finish(mem memory.Allocator, _ arrow.DataType) (arrow.Array, error) {
	vals := make([]int64, len(h.sparse))
	valid := make([]bool, len(h.sparse))
	for g := range vals {
		valid[g] = true
		if h.dense[g] != nil {
			vals[g] = hllEstimate(h.dense[g])
		} else {
			vals[g] = int64(len(h.sparse[g]))
		}
	}
	return buildSigned(mem, arrow.PrimitiveTypes.Int64, vals, valid), nil
}

// hash64 is FNV-1a followed by a splitmix64 finalizer, so that every bit is well mixed.
func hash64(b []byte) uint64 {
	x := uint64(14695981039346656037)
	for _, c := range b {
		x ^= uint64(c)
		x *= 1099511628211
	}
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
