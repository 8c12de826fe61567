package ops

import (
	"github.com/flightd/flightd/exec/kernel"
)

// Folding int64 lanes (agg_lanes.go) into sum and avg. With few groups a batch is summed
// into one int64 per group first (safe when the values' bound times the batch's rows stays
// below 2^63), then each group's sum and row count go into its 128-bit state once;
// otherwise each row goes into its group's 128-bit state.

// laneSmallGroups is the most groups summed through per-batch partial sums.
const laneSmallGroups = 1024

// foldLanes folds the lane values of every aggregate on lanes into its state, for the rows
// with include set (nil: every row), whose groups are groups, and marks them handled.
// Aggregates without FILTER over the same expression (sum(x) and avg(x)) share its
// per-group sums, and with few groups count(*) takes the per-group row counts they share.
func (a *Aggregate) foldLanes(in aggInputs, groups []int32, include []bool) {
	lp := a.lanes
	var shared []int64 // rows per group of include (aggregates without FILTER)
	counts := func() []int64 {
		if shared == nil {
			a.laneCounts = a.groupCounts(groups, include, a.laneCounts)
			shared = a.laneCounts
		}
		return shared
	}
	clear(lp.summed)
	clear(lp.handled)
	narrow := a.nGroups <= laneSmallGroups
	if narrow && len(a.groupBy) > 0 {
		shared = a.fuseSums(in, groups, include) // nil when there is nothing to fuse
	}
	for i, k := range lp.roots {
		switch {
		case k < 0 && lp.stars[i] && narrow:
			c := a.accs[i].(*countAcc)
			for g, n := range counts() {
				c.counts[g] += n
			}
		case k >= 0:
			a.foldLane(i, k, in.masks[i], groups, include, narrow, counts)
		default:
			continue
		}
		lp.handled[i] = true
	}
}

// foldLane folds aggregate i, whose argument is node k, for the rows set in include and
// mask (its FILTER; nil: none); counts returns the row counts of include's rows per group.
func (a *Aggregate) foldLane(i, k int, mask []bool, groups []int32, include []bool, narrow bool, counts func() []int64) {
	lp := a.lanes
	s := a.accs[i].(*sumAcc)
	vals, bound := lp.vals[k], lp.bound[k]
	rows := andMasks(mask, include)
	if _, fits := kernel.LaneMulBound(bound, uint64(len(vals))); !fits || !narrow {
		s.addLanesWide(groups, vals, rows)
		return
	}
	if mask != nil {
		s.addGroupSums(a.groupSums(nil, groups, vals, rows), a.groupCounts(groups, rows, nil))
		return
	}
	if !lp.summed[k] {
		lp.sums[k], lp.summed[k] = a.groupSums(lp.sums[k], groups, vals, rows), true
	}
	s.addGroupSums(lp.sums[k], counts())
}

// groupSums returns the sum of vals over the rows with rows set (nil: every row) of each
// group, in buf (reused); the caller has checked that no partial sum overflows. Four rows
// are summed at a time, each into its own slot (sumLanes4), so that rows of one group do not
// wait for each other.
func (a *Aggregate) groupSums(buf []int64, groups []int32, vals []int64, rows []bool) []int64 {
	ng := a.nGroups
	sums := grow(buf[:0], ng)[:ng]
	if len(a.groupBy) == 0 {
		sums[0] = sumLane(vals, rows)
		return sums
	}
	a.lanePartial = grow(a.lanePartial[:0], 4*ng)[:4*ng]
	partial := a.lanePartial
	clear(partial)
	sumLanes4(partial, ng, groups, vals, rows)
	for g := range sums {
		sums[g] = partial[g] + partial[ng+g] + partial[2*ng+g] + partial[3*ng+g]
	}
	return sums
}

// groupCounts returns the number of rows with rows set (nil: every row) of each group, in
// buf (reused); rows are counted four at a time into separate slots, as groupSums sums.
func (a *Aggregate) groupCounts(groups []int32, rows []bool, buf []int64) []int64 {
	ng := a.nGroups
	counts := grow(buf[:0], ng)[:ng]
	if len(a.groupBy) == 0 {
		n := len(groups)
		if rows != nil {
			n = 0
			for _, r := range rows {
				n += b2i(r)
			}
		}
		counts[0] = int64(n)
		return counts
	}
	a.lanePartial = grow(a.lanePartial[:0], 4*ng)[:4*ng]
	partial := a.lanePartial
	clear(partial)
	countLanes4(partial, ng, groups, rows)
	for g := range counts {
		counts[g] = partial[g] + partial[ng+g] + partial[2*ng+g] + partial[3*ng+g]
	}
	return counts
}

// countLanes4 counts the rows with rows set (nil: every row) into partial, row i going to
// slot (i%4)*ng + groups[i].
func countLanes4(partial []int64, ng int, groups []int32, rows []bool) {
	p0, p1, p2, p3 := partial[:ng], partial[ng:2*ng], partial[2*ng:3*ng], partial[3*ng:4*ng]
	n := len(groups)
	i := 0
	if rows == nil {
		for ; i+4 <= n; i += 4 {
			p0[groups[i]]++
			p1[groups[i+1]]++
			p2[groups[i+2]]++
			p3[groups[i+3]]++
		}
		for ; i < n; i++ {
			p0[groups[i]]++
		}
		return
	}
	rows = rows[:n]
	for ; i+4 <= n; i += 4 {
		p0[groups[i]] += int64(b2i(rows[i]))
		p1[groups[i+1]] += int64(b2i(rows[i+1]))
		p2[groups[i+2]] += int64(b2i(rows[i+2]))
		p3[groups[i+3]] += int64(b2i(rows[i+3]))
	}
	for ; i < n; i++ {
		p0[groups[i]] += int64(b2i(rows[i]))
	}
}

// addGroupSums adds each group's sum and row count of a batch to its state.
func (s *sumAcc) addGroupSums(sums, counts []int64) {
	for g, c := range counts {
		if c != 0 {
			s.ints[g] = s.ints[g].AddInt64(sums[g])
			s.counts[g] += c
		}
	}
}

// sumLanes4 adds vals of the rows with rows set (nil: every row) into partial, row i going
// to slot (i%4)*ng + groups[i].
func sumLanes4(partial []int64, ng int, groups []int32, vals []int64, rows []bool) {
	p0, p1, p2, p3 := partial[:ng], partial[ng:2*ng], partial[2*ng:3*ng], partial[3*ng:4*ng]
	n := len(groups)
	vals = vals[:n]
	i := 0
	if rows == nil {
		for ; i+4 <= n; i += 4 {
			p0[groups[i]] += vals[i]
			p1[groups[i+1]] += vals[i+1]
			p2[groups[i+2]] += vals[i+2]
			p3[groups[i+3]] += vals[i+3]
		}
		for ; i < n; i++ {
			p0[groups[i]] += vals[i]
		}
		return
	}
	rows = rows[:n]
	for ; i+4 <= n; i += 4 {
		p0[groups[i]] += vals[i] & -int64(b2i(rows[i]))
		p1[groups[i+1]] += vals[i+1] & -int64(b2i(rows[i+1]))
		p2[groups[i+2]] += vals[i+2] & -int64(b2i(rows[i+2]))
		p3[groups[i+3]] += vals[i+3] & -int64(b2i(rows[i+3]))
	}
	for ; i < n; i++ {
		p0[groups[i]] += vals[i] & -int64(b2i(rows[i]))
	}
}

// sumLane returns the sum of vals over the rows with rows set (nil: every row).
func sumLane(vals []int64, rows []bool) int64 {
	var sum int64
	if rows == nil {
		for _, v := range vals {
			sum += v
		}
		return sum
	}
	for i, v := range vals {
		sum += v & -int64(b2i(rows[i]))
	}
	return sum
}

// addLanesWide adds vals of the rows with rows set (nil: every row) to their groups' sums
// and row counts one row at a time.
func (s *sumAcc) addLanesWide(groups []int32, vals []int64, rows []bool) {
	for i, g := range groups {
		if rows == nil || rows[i] {
			s.ints[g] = s.ints[g].AddInt64(vals[i])
			s.counts[g]++
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
