package index

import (
	"bytes"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// btreePageRows is one decoded page of a BTree's page_data, in Go memory only (it is kept
// in the page cache): int64 keys without nulls (the usual key column) as ints, any other
// keys normalized as vals; ids are the rows' addresses.
type btreePageRows struct {
	ints   []int64
	lo, hi int64 // the least and greatest of ints (when there are any)
	vals   []value
	ids    []uint64
}

// decodePageRows copies rows [lo, hi) of a page_data read.
func decodePageRows(values arrow.Array, ids *array.Uint64, lo, hi int) (*btreePageRows, error) {
	pd := &btreePageRows{ids: slices.Clone(ids.Uint64Values()[lo:hi])}
	if vs, ok := values.(*array.Int64); ok && vs.DataType().ID() == arrow.INT64 && vs.NullN() == 0 {
		pd.ints = slices.Clone(vs.Int64Values()[lo:hi])
		if len(pd.ints) > 0 {
			pd.lo, pd.hi = slices.Min(pd.ints), slices.Max(pd.ints)
		}
		return pd, nil
	}
	pd.vals = make([]value, hi-lo)
	for i := lo; i < hi; i++ {
		v, ok := valueAt(values, i)
		if !ok {
			return nil, notSupported("btree over %s", values.DataType())
		}
		v.b = bytes.Clone(v.b) // valueAt aliases the Arrow buffer
		pd.vals[i-lo] = v
	}
	return pd, nil
}

// cost is the page's size estimate for the page cache.
func (pd *btreePageRows) cost() int64 {
	n := 8*len(pd.ids) + 8*len(pd.ints) + 48*len(pd.vals)
	for _, v := range pd.vals {
		n += len(v.b)
	}
	return int64(n) + 64
}

// filter adds the ids of the rows matching p.
func (pd *btreePageRows) filter(p plan, add *rowAdder) {
	if pd.ints != nil {
		if spans, ok := int64Spans(p); ok {
			for _, sp := range spans {
				if len(pd.ints) > 0 && sp.lo <= pd.lo && pd.hi <= sp.hi {
					add.addAll(pd.ids) // every row of the page matches
					return
				}
			}
			for i, v := range pd.ints {
				for _, sp := range spans {
					if v >= sp.lo && v <= sp.hi {
						add.add(pd.ids[i])
						break
					}
				}
			}
			return
		}
		for i, v := range pd.ints {
			if p.match(value{kind: kInt, i: v}) {
				add.add(pd.ids[i])
			}
		}
		return
	}
	for i, v := range pd.vals {
		if p.match(v) {
			add.add(pd.ids[i])
		}
	}
}

// int64Span is an inclusive range of int64 values.
type int64Span struct{ lo, hi int64 }

// int64Spans turns p's intervals into inclusive int64 ranges; ok is false when a bound is
// not an int64 value (the generic comparison then applies).
func int64Spans(p plan) ([]int64Span, bool) {
	out := make([]int64Span, 0, len(p.ivs))
	for _, iv := range p.ivs {
		sp := int64Span{math.MinInt64, math.MaxInt64}
		if iv.hasLo {
			if iv.lo.kind != kInt {
				return nil, false
			}
			sp.lo = iv.lo.i
			if !iv.loInc {
				if sp.lo == math.MaxInt64 {
					continue // > max: empty
				}
				sp.lo++
			}
		}
		if iv.hasHi {
			if iv.hi.kind != kInt {
				return nil, false
			}
			sp.hi = iv.hi.i
			if !iv.hiInc {
				if sp.hi == math.MinInt64 {
					continue // < min: empty
				}
				sp.hi--
			}
		}
		out = append(out, sp)
	}
	return out, true
}

// rowAdder adds addresses to a RowSet, remembering the last fragment's entry (index pages
// hold long runs of one fragment's rows). hint, when set, bounds the number of rows to be
// added: the first fragment's offsets get that capacity at once (a range query's rows are
// usually in one fragment) instead of growing by copies.
type rowAdder struct {
	set  *RowSet
	frag uint32
	fr   *fragRows
	hint int
}

// to returns the entry of fragment f.
func (a *rowAdder) to(f uint32) *fragRows {
	if a.fr == nil || f != a.frag {
		a.fr = a.set.frags[f]
		if a.fr == nil {
			a.fr = &fragRows{}
			if a.hint > 0 {
				a.fr.rows = make([]uint32, 0, a.hint)
				a.hint = 0
			}
			a.set.frags[f] = a.fr
		}
		a.frag = f
	}
	return a.fr
}

func (a *rowAdder) add(addr uint64) {
	fr := a.to(uint32(addr >> 32))
	fr.rows = append(fr.rows, uint32(addr))
}

// addAll adds every address of addrs.
func (a *rowAdder) addAll(addrs []uint64) {
	for len(addrs) > 0 {
		f := uint32(addrs[0] >> 32)
		n := 1
		for n < len(addrs) && uint32(addrs[n]>>32) == f {
			n++
		}
		fr := a.to(f)
		fr.rows = slices.Grow(fr.rows, n)
		for _, addr := range addrs[:n] {
			fr.rows = append(fr.rows, uint32(addr))
		}
		addrs = addrs[n:]
	}
}

// intBounds are the bounds of a BTree's pages as int64s, when every page has non-null
// integer bounds (the usual key column); sorted is set when both bounds ascend from page
// to page, as a BTree's page_lookup does, so that a span's pages are found by binary search.
type intBounds struct {
	lo, hi []int64
	sorted bool
}

// newIntBounds returns the pages' int64 bounds, or nil.
func newIntBounds(pages []btreePage) *intBounds {
	ib := &intBounds{lo: make([]int64, len(pages)), hi: make([]int64, len(pages)), sorted: true}
	for i, pg := range pages {
		if pg.min.kind != kInt || pg.max.kind != kInt {
			return nil
		}
		ib.lo[i], ib.hi[i] = pg.min.i, pg.max.i
		if i > 0 && (ib.lo[i] < ib.lo[i-1] || ib.hi[i] < ib.hi[i-1]) {
			ib.sorted = false
		}
	}
	return ib
}

// pages returns the positions (ascending) of the pages whose bounds overlap a span.
func (ib *intBounds) pages(spans []int64Span) []int {
	var out []int
	if !ib.sorted {
		for i := range ib.lo {
			for _, sp := range spans {
				if ib.hi[i] >= sp.lo && ib.lo[i] <= sp.hi {
					out = append(out, i)
					break
				}
			}
		}
		return out
	}
	for _, sp := range spans {
		i, _ := slices.BinarySearch(ib.hi, sp.lo) // the first page whose max is ≥ lo
		for ; i < len(ib.lo) && ib.lo[i] <= sp.hi; i++ {
			out = append(out, i)
		}
	}
	if len(spans) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}
