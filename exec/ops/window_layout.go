package ops

import (
	"cmp"
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// windowLayout is the input of one window specification in sorted order: partitions and
// peer groups as ranges of sorted positions. Position i holds input row perm[i]; frames and
// results are computed over positions.
type windowLayout struct {
	n         int
	perm      []int32 // sorted position → input row
	partStart []int32 // per position: first position of its partition
	partEnd   []int32 // per position: one past the last position of its partition
	peerIdx   []int32 // per position: number of its peer group (over all partitions)
	peerStart []int32 // per peer group: first position; one extra entry n at the end
	orderCols []arrow.Array
	orderKeys []plan.SortKey
}

// newWindowLayout sorts all's rows by the partition keys (ascending, NULLs last) and then
// the order keys, and finds the partitions and peer groups.
func newWindowLayout(ctx context.Context, env exec.Env, all arrow.RecordBatch, partition []plan.Expr, order []plan.SortKey) (*windowLayout, error) {
	n := int(all.NumRows())
	l := &windowLayout{n: n, orderKeys: order}
	var partCols []arrow.Array
	defer func() { releaseArrays(partCols) }()
	partCmps, err := evalComparators(ctx, env, all, exprKeys(partition), &partCols)
	if err != nil {
		return nil, err
	}
	orderCmps, err := evalComparators(ctx, env, all, order, &l.orderCols)
	if err != nil {
		l.release()
		return nil, err
	}
	l.perm = make([]int32, n)
	for i := range l.perm {
		l.perm[i] = int32(i)
	}
	cmps := append(append([]rowComparator(nil), partCmps...), orderCmps...)
	if len(cmps) > 0 {
		// Ties broken by input row: a stable order from the faster unstable sort.
		slices.SortFunc(l.perm, func(x, y int32) int {
			if c := compareBy(cmps, int(x), int(y)); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
	}
	l.findGroups(partCmps, orderCmps)
	return l, nil
}

// exprKeys turns partition expressions into ascending, NULLs-last sort keys.
func exprKeys(exprs []plan.Expr) []plan.SortKey {
	keys := make([]plan.SortKey, len(exprs))
	for i, e := range exprs {
		keys[i] = plan.SortKey{Expr: e}
	}
	return keys
}

// evalComparators evaluates the key expressions over all, appending the columns to cols
// (which the caller releases), and returns one comparator per key.
func evalComparators(ctx context.Context, env exec.Env, all arrow.RecordBatch, keys []plan.SortKey, cols *[]arrow.Array) ([]rowComparator, error) {
	cmps := make([]rowComparator, len(keys))
	for i, k := range keys {
		ev, err := expr.Compile(k.Expr, env.Mem)
		if err != nil {
			return nil, err
		}
		c, err := ev.Eval(ctx, all)
		if err != nil {
			return nil, err
		}
		*cols = append(*cols, c)
		if cmps[i], err = keyComparator(c, k); err != nil {
			return nil, err
		}
	}
	return cmps, nil
}

func compareBy(cmps []rowComparator, x, y int) int {
	for _, c := range cmps {
		if r := c(x, y); r != 0 {
			return r
		}
	}
	return 0
}

// findGroups fills the partition and peer-group ranges from the sorted permutation.
func (l *windowLayout) findGroups(partCmps, orderCmps []rowComparator) {
	n := l.n
	l.partStart, l.partEnd, l.peerIdx = make([]int32, n), make([]int32, n), make([]int32, n)
	l.peerStart = l.peerStart[:0]
	start := 0
	for i := range n {
		newPart := i == 0 || compareBy(partCmps, int(l.perm[i-1]), int(l.perm[i])) != 0
		if newPart && i > 0 {
			l.setPartition(start, i)
			start = i
		}
		if newPart || compareBy(orderCmps, int(l.perm[i-1]), int(l.perm[i])) != 0 {
			l.peerStart = append(l.peerStart, int32(i))
		}
		l.peerIdx[i] = int32(len(l.peerStart) - 1)
	}
	if n > 0 {
		l.setPartition(start, n)
	}
	l.peerStart = append(l.peerStart, int32(n))
}

func (l *windowLayout) setPartition(start, end int) {
	for j := start; j < end; j++ {
		l.partStart[j], l.partEnd[j] = int32(start), int32(end)
	}
}

// peerBegin and peerEnd are the bounds of position i's peer group.
func (l *windowLayout) peerBegin(i int) int { return int(l.peerStart[l.peerIdx[i]]) }
func (l *windowLayout) peerEnd(i int) int   { return int(l.peerStart[l.peerIdx[i]+1]) }

// bytes estimates the layout's memory for the query's pool.
func (l *windowLayout) bytes() int64 {
	var n int64
	for _, c := range l.orderCols {
		n += dataBytes(c.Data())
	}
	return n + int64(4*(4*l.n+len(l.peerStart)))
}

func (l *windowLayout) release() {
	releaseArrays(l.orderCols)
	l.orderCols = nil
}
