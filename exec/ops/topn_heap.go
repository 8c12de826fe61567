package ops

import (
	"container/heap"
	"slices"
)

// selectTop returns the k rows of rows (positions in input order) that come first in a
// stable sort by cmps, in input order (so that a stable sort of them keeps ties right),
// reusing rows' storage. It keeps a max-heap of
// the k best rows seen so far, ordered by (keys, position), so that of equal keys the
// earlier row is kept, as a stable sort would.
func selectTop(rows []int32, k int, cmps []rowComparator) []int32 {
	if k <= 0 {
		return rows[:0]
	}
	h := &rowHeap{rows: make([]int32, 0, k), cmps: cmps}
	for _, r := range rows {
		if len(h.rows) < k {
			heap.Push(h, r)
			continue
		}
		if h.before(r, h.rows[0]) {
			h.rows[0] = r
			heap.Fix(h, 0)
		}
	}
	out := append(rows[:0], h.rows...)
	slices.Sort(out)
	return out
}

// rowHeap is a max-heap of row positions: the root is the worst kept row.
type rowHeap struct {
	rows []int32
	cmps []rowComparator
}

// before reports whether row x sorts before row y (keys, then position).
func (h *rowHeap) before(x, y int32) bool {
	if c := compareRows(h.cmps, int(x), int(y)); c != 0 {
		return c < 0
	}
	return x < y
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.before(h.rows[j], h.rows[i]) }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(int32)) }
func (h *rowHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}
