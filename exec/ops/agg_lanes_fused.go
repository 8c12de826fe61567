package ops

import (
	"github.com/flightd/flightd/exec/kernel"
)

// Fused per-group sums: with few groups, the lane nodes summed per group (the arguments of
// sum and avg without FILTER, TPC-H Q1's five) and the rows per group are summed in one
// pass over the batch, up to six nodes and the row count per pass, instead of one pass
// per node and one for the counts: a row's group is read once, and its values go to
// adjacent slots. Alternate rows go to two copies of the slots, so that rows of one group
// do not wait for each other's additions. The pass tests no mask: rows left out of include
// (a fused filter's, few of them in Q1) are summed too, into the group assignGroups gave
// them (group 0; any valid group would do), and subtracted from it afterwards. The sums are
// the ones groupSums and groupCounts compute: int64 additions and subtractions in any
// order, none overflowing (the caller has checked each node's bound times the batch's
// rows, left-out ones included).

// fusedLanes is the most nodes summed in one pass. The passes are bound by the latency of
// adding to a slot a previous row of the same group added to, not by the additions: one
// pass over more nodes costs little more than over one, so a pass sums three or six lanes,
// the ones without a node reading zeros.
const fusedLanes = 6

// fuseSums sums, per group, every node that foldLane would sum through groupSums for the
// aggregates without FILTER and the rows of include (nil: every row), into lp.sums (marked
// summed), and returns the rows per group; nil when there is nothing to fuse (then nothing
// is summed).
func (a *Aggregate) fuseSums(in aggInputs, groups []int32, include []bool) []int64 {
	lp := a.lanes
	nodes := a.fusedNodes[:0]
	for i, k := range lp.roots {
		if k < 0 || in.masks[i] != nil || lp.summed[k] {
			continue
		}
		if _, fits := kernel.LaneMulBound(lp.bound[k], uint64(len(groups))); !fits {
			continue
		}
		lp.summed[k] = true // marked now so that a shared node is listed once
		nodes = append(nodes, k)
	}
	a.fusedNodes = nodes
	if len(nodes) == 0 {
		return nil
	}
	if a.nGroups == 0 { // every row left out: nothing to sum
		for _, k := range nodes {
			lp.sums[k] = lp.sums[k][:0]
		}
		return a.laneCounts[:0]
	}
	ng := a.nGroups
	a.leftOut = a.leftOut[:0]
	if include != nil {
		a.leftOut = kernel.MaskUnset(a.leftOut, include)
	}
	a.laneZeros = grow(a.laneZeros, len(groups)) // never written: stays zero
	var counts []int64
	for start := 0; start < len(nodes); start += fusedLanes {
		chunk := nodes[start:min(start+fusedLanes, len(nodes))]
		var lanes [fusedLanes][]int64
		for j, k := range chunk {
			lanes[j] = lp.vals[k]
		}
		var w int
		a.lanePartial, w = sumPass(a.lanePartial, ng, groups, lanes[:len(chunk)], a.laneZeros, a.leftOut)
		for j, k := range chunk {
			lp.sums[k] = foldSlots(lp.sums[k], a.lanePartial, ng, w, j)
		}
		if counts == nil {
			a.laneCounts = foldSlots(a.laneCounts, a.lanePartial, ng, w, w-1)
			counts = a.laneCounts
		}
	}
	a.fusedBatches++
	return counts
}

// sumPass sums each of lanes (1 to fusedLanes of them) and the row count per group over the
// rows, less the rows at positions leftOut, in one pass: it returns partial (in buf, reused),
// two copies of w slots per group, lane j's sums in column j and the counts in the last
// (foldSlots adds the copies). zeros holds a zero for every row (the lanes of a pass
// without a node).
func sumPass(buf []int64, ng int, groups []int32, lanes [][]int64, zeros []int64, leftOut []int32) (partial []int64, w int) {
	cols := fusedLanes / 2 // the lanes of a pass: 3 or 6
	if len(lanes) > cols {
		cols = fusedLanes
	}
	var all [fusedLanes][]int64
	for j := range cols {
		all[j] = zeros
	}
	copy(all[:], lanes)
	w = cols + 1
	size := 2 * ng * w
	partial = grow(buf[:0], size)[:size]
	clear(partial)
	if cols == fusedLanes {
		sumFused6(partial, ng, groups, &all)
	} else {
		sumFused3(partial, ng, groups, all[0], all[1], all[2])
	}
	dropRows(partial, w, groups, lanes, leftOut)
	return partial, w
}

// foldSlots returns, in buf (reused), column j of the ng groups of partial (two copies of
// slots of w columns per group), the copies added.
func foldSlots(buf, partial []int64, ng, w, j int) []int64 {
	out := grow(buf[:0], ng)[:ng]
	second := ng * w
	for g := range out {
		out[g] = partial[g*w+j] + partial[second+g*w+j]
	}
	return out
}

// dropRows takes the rows at positions rows, which the fused pass summed into their
// groups' slots of w columns, out of the first copy of the slots again: their lanes'
// values, and 1 from the row count (the last column).
func dropRows(partial []int64, w int, groups []int32, lanes [][]int64, rows []int32) {
	for _, r := range rows {
		addRow(partial, w, groups, lanes, int(r), -1)
	}
}

// addRow adds sign times row r's lane values, and sign to the count (the last column), to
// its group's slots of w columns in the first copy of partial: the row-at-a-time form of
// the fused passes, for the rows they leave (an odd tail, rows the filter left out).
func addRow(partial []int64, w int, groups []int32, lanes [][]int64, r int, sign int64) {
	g := int(groups[r]) * w
	p := partial[g : g+w : g+w]
	for j, l := range lanes {
		p[j] += sign * l[r]
	}
	p[w-1] += sign
}

// sumFused3 adds x, y and z of each row, and 1, to the slots of its group: partial holds
// two copies (even and odd rows) of 4 slots for each of the groupsN groups (every value of
// groups is below groupsN), laid out copy, group, column. The loop is written out for three
// lanes (and in sumFused6 for six) so that a row's slots are updated without an inner loop
// over the lanes.
func sumFused3(partial []int64, groupsN int, groups []int32, x, y, z []int64) {
	const w = 4
	n := len(groups)
	x, y, z = x[:n], y[:n], z[:n]
	odd := partial[groupsN*w:]
	i := 0
	for ; i+2 <= n; i += 2 {
		g := int(groups[i]) * w
		p := partial[g : g+w : g+w]
		p[0] += x[i]
		p[1] += y[i]
		p[2] += z[i]
		p[3]++
		g = int(groups[i+1]) * w
		q := odd[g : g+w : g+w]
		q[0] += x[i+1]
		q[1] += y[i+1]
		q[2] += z[i+1]
		q[3]++
	}
	if i < n {
		addRow(partial, w, groups, [][]int64{x, y, z}, i, 1)
	}
}

// sumFused6 is sumFused3 over six lanes (7 slots per group).
func sumFused6(partial []int64, groupsN int, groups []int32, lanes *[fusedLanes][]int64) {
	const w = 7
	n := len(groups)
	x, y, z, v, u, t := lanes[0][:n], lanes[1][:n], lanes[2][:n], lanes[3][:n], lanes[4][:n], lanes[5][:n]
	odd := partial[groupsN*w:]
	i := 0
	for ; i+2 <= n; i += 2 {
		g := int(groups[i]) * w
		p := partial[g : g+w : g+w]
		p[0] += x[i]
		p[1] += y[i]
		p[2] += z[i]
		p[3] += v[i]
		p[4] += u[i]
		p[5] += t[i]
		p[6]++
		g = int(groups[i+1]) * w
		q := odd[g : g+w : g+w]
		q[0] += x[i+1]
		q[1] += y[i+1]
		q[2] += z[i+1]
		q[3] += v[i+1]
		q[4] += u[i+1]
		q[5] += t[i+1]
		q[6]++
	}
	if i < n {
		addRow(partial, w, groups, lanes[:], i, 1)
	}
}
