package index

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

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

// filterInt64Page is filterPage for int64 values (the usual key column) and int64 bounds,
// without normalizing each value; ok is false when it does not apply.
func filterInt64Page(values arrow.Array, ids *array.Uint64, p plan, rows *RowSet) (bool, error) {
	vs, isInt := values.(*array.Int64)
	if !isInt || vs.DataType().ID() != arrow.INT64 {
		return false, nil
	}
	spans, ok := int64Spans(p)
	if !ok {
		return false, nil
	}
	raw, idv := vs.Int64Values(), ids.Uint64Values()
	hasNulls := vs.NullN() > 0
	add := rowAdder{set: rows}
	for i, v := range raw {
		match := false
		if hasNulls && vs.IsNull(i) {
			match = p.nulls
		} else {
			for _, sp := range spans {
				if v >= sp.lo && v <= sp.hi {
					match = true
					break
				}
			}
		}
		if !match {
			continue
		}
		if ids.IsNull(i) {
			return true, corrupt("null row id in btree page data")
		}
		add.add(idv[i])
	}
	return true, nil
}

// rowAdder adds addresses to a RowSet, remembering the last fragment's entry (index pages
// hold long runs of one fragment's rows).
type rowAdder struct {
	set  *RowSet
	frag uint32
	fr   *fragRows
}

func (a *rowAdder) add(addr uint64) {
	f := uint32(addr >> 32)
	if a.fr == nil || f != a.frag {
		a.fr = a.set.frags[f]
		if a.fr == nil {
			a.fr = &fragRows{}
			a.set.frags[f] = a.fr
		}
		a.frag = f
	}
	a.fr.rows = append(a.fr.rows, uint32(addr))
}
