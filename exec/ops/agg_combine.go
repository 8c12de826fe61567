package ops

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// combiner is an accumulator whose partial states (one per worker) can be merged: combine
// folds src's group g into this accumulator's group groups[g]. src has the same concrete
// type and was built for the same aggregate call.
type combiner interface {
	combine(src accumulator, groups []int32) error
}

// combinableFuncs are the aggregates whose partial states merge exactly (count, integer and
// decimal sums) or as a parallel engine's would (float sums, Chan's variance merge). The
// order-sensitive ones (first, last, list/array_agg, string_agg) and any_value are absent:
// their result depends on input order, so they run on one goroutine.
var combinableFuncs = map[string]bool{
	"count": true, "count_star": true, "sum": true, "avg": true, "min": true, "max": true,
	"stddev_samp": true, "stddev_pop": true, "stddev": true, "var_samp": true, "var_pop": true,
	"variance": true, "bool_and": true, "bool_or": true, "approx_count_distinct": true,
}

// CanCombine reports whether every aggregate of aggs has mergeable partial states, so that
// a ParallelAggregate computes the same result as an Aggregate. DISTINCT is fine: the
// workers keep their distinct values and the merge deduplicates them again.
func CanCombine(aggs []plan.AggCall) bool {
	for _, a := range aggs {
		if !combinableFuncs[a.Func] {
			return false
		}
	}
	return true
}

// sizedAcc is an accumulator whose state holds values of variable size (strings, lists,
// kept argument values); the aggregate reserves stateBytes' growth from the memory pool.
type sizedAcc interface {
	stateBytes() int64
}

func combineMismatch(dst, src accumulator) error {
	return dberr.New(dberr.Internal, "aggregate merge: %T with %T", dst, src)
}

func (a *nullAcc) combine(src accumulator, _ []int32) error {
	if _, ok := src.(*nullAcc); !ok {
		return combineMismatch(a, src)
	}
	return nil
}

func (c *countAcc) combine(src accumulator, groups []int32) error {
	s, ok := src.(*countAcc)
	if !ok {
		return combineMismatch(c, src)
	}
	for g, dg := range groups {
		c.counts[dg] += s.counts[g]
	}
	return nil
}

func (s *sumAcc) combine(src accumulator, groups []int32) error {
	o, ok := src.(*sumAcc)
	if !ok || o.kind != s.kind {
		return combineMismatch(s, src)
	}
	for g, dg := range groups {
		if o.counts[g] == 0 {
			continue
		}
		s.counts[dg] += o.counts[g]
		if s.kind == kindFloat {
			s.floats[dg] += o.floats[g]
		} else {
			s.ints[dg] = s.ints[dg].Add(o.ints[g])
		}
	}
	return nil
}

func (m *minMaxAcc[T]) combine(src accumulator, groups []int32) error {
	o, ok := src.(*minMaxAcc[T])
	if !ok {
		return combineMismatch(m, src)
	}
	for g, dg := range groups {
		if !o.seen[g] {
			continue
		}
		v := o.vals[g]
		if m.seen[dg] && (m.max && !m.less(m.vals[dg], v) || !m.max && !m.less(v, m.vals[dg])) {
			continue
		}
		m.vals[dg], m.seen[dg] = v, true // o's values are already owned
	}
	return nil
}

// combine merges Welford states with Chan et al.'s pairwise formula.
func (v *varianceAcc) combine(src accumulator, groups []int32) error {
	o, ok := src.(*varianceAcc)
	if !ok {
		return combineMismatch(v, src)
	}
	for g, dg := range groups {
		nb := o.n[g]
		if nb == 0 {
			continue
		}
		na := v.n[dg]
		if na == 0 {
			v.n[dg], v.mean[dg], v.m2[dg] = nb, o.mean[g], o.m2[g]
			continue
		}
		n := na + nb
		delta := o.mean[g] - v.mean[dg]
		v.mean[dg] += delta * float64(nb) / float64(n)
		v.m2[dg] += o.m2[g] + delta*delta*float64(na)*float64(nb)/float64(n)
		v.n[dg] = n
	}
	return nil
}

func (b *boolAcc) combine(src accumulator, groups []int32) error {
	o, ok := src.(*boolAcc)
	if !ok {
		return combineMismatch(b, src)
	}
	for g, dg := range groups {
		switch {
		case !o.seen[g]:
		case !b.seen[dg]:
			b.vals[dg], b.seen[dg] = o.vals[g], true
		case b.and:
			b.vals[dg] = b.vals[dg] && o.vals[g]
		default:
			b.vals[dg] = b.vals[dg] || o.vals[g]
		}
	}
	return nil
}

// combine unions the exact sets and takes the register maxima of the sketches, so the
// result is the one a single pass would give.
func (h *hllAcc) combine(src accumulator, groups []int32) error {
	o, ok := src.(*hllAcc)
	if !ok {
		return combineMismatch(h, src)
	}
	for g, dg := range groups {
		for x := range o.sparse[g] {
			h.add(dg, x)
		}
		if o.dense[g] == nil {
			continue
		}
		if h.dense[dg] == nil {
			regs := make([]uint8, hllM)
			for x := range h.sparse[dg] {
				hllInsert(regs, x)
			}
			h.dense[dg], h.sparse[dg] = regs, nil
		}
		for r, v := range o.dense[g] {
			h.dense[dg][r] = max(h.dense[dg][r], v)
		}
	}
	return nil
}
