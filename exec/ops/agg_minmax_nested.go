package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// nestedMinMaxAcc is min(x) or max(x) over structs and lists, in DuckDB's order
// (kernel.NestedComparator: field by field, element by element, NULLs inside above every
// value). The current extreme of every group is kept in a rowStore that is compacted to
// one chunk (row g: group g's value) after every batch that changes one.
type nestedMinMaxAcc struct {
	max   bool
	store rowStore
	refs  []int64 // per group: row in store.chunks[0], -1 none yet
	best  []int32 // per group: best row of the current batch, -1 none (scratch)
}

func newNestedMinMax(dt arrow.DataType, isMax bool, mem memory.Allocator) *nestedMinMaxAcc {
	return &nestedMinMaxAcc{max: isMax, store: rowStore{mem: mem, dt: dt}}
}

func (m *nestedMinMaxAcc) resize(n int) {
	for len(m.refs) < n {
		m.refs = append(m.refs, -1)
		m.best = append(m.best, -1)
	}
}

// better reports whether a comparison result c (new against kept) replaces the kept value.
func (m *nestedMinMaxAcc) better(c int) bool {
	if m.max {
		return c > 0
	}
	return c < 0
}

func (m *nestedMinMaxAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	self, err := kernel.NestedComparator(arg, arg)
	if err != nil {
		return dberr.Wrap(dberr.Internal, err, "min/max")
	}
	var touched []int32
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		switch b := m.best[g]; {
		case b < 0:
			m.best[g] = int32(i)
			touched = append(touched, g)
		case m.better(self(i, int(b))):
			m.best[g] = int32(i)
		}
	}
	if len(touched) == 0 {
		return nil
	}
	return m.keep(arg, touched)
}

// keep folds the batch's best rows of the touched groups into the store and resets best.
func (m *nestedMinMaxAcc) keep(arg arrow.Array, touched []int32) error {
	var kept func(i, j int) int
	if len(m.store.chunks) > 0 {
		c, err := kernel.NestedComparator(arg, m.store.chunks[0])
		if err != nil {
			return dberr.Wrap(dberr.Internal, err, "min/max")
		}
		kept = c
	}
	var rows, groups []int32
	for _, g := range touched {
		b := m.best[g]
		m.best[g] = -1
		if r := m.refs[g]; r >= 0 && !m.better(kept(int(b), int(r))) {
			continue
		}
		rows, groups = append(rows, b), append(groups, g)
	}
	if len(rows) == 0 {
		return nil
	}
	base, err := m.store.takeRows(arg, rows)
	if err != nil {
		return err
	}
	for k, g := range groups {
		m.refs[g] = base + int64(k)
	}
	return m.store.compact(m.refs)
}

func (m *nestedMinMaxAcc) finish(_ memory.Allocator, _ arrow.DataType) (arrow.Array, error) {
	return m.store.gather(m.refs)
}

// combine merges another worker's extremes: group g of src goes to groups[g].
func (m *nestedMinMaxAcc) combine(src accumulator, groups []int32) error {
	o, ok := src.(*nestedMinMaxAcc)
	if !ok {
		return combineMismatch(m, src)
	}
	vals, err := o.store.gather(o.refs[:len(groups)])
	if err != nil {
		return err
	}
	defer vals.Release()
	return m.update(groups, vals, nil)
}

func (m *nestedMinMaxAcc) stateBytes() int64 { return m.store.bytes }

func (m *nestedMinMaxAcc) release() { m.store.release() }
