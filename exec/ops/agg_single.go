package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// errScalarSubqueryRows is DuckDB's error for a scalar subquery that returns several rows.
var errScalarSubqueryRows = dberr.New(dberr.InvalidInput,
	"More than one row returned by a subquery used as an expression - scalar subqueries can only return a single row.")

// singleAcc is single_value(x), the aggregate of a scalar subquery: the group's one value
// (NULL or not), NULL for a group without rows, and an error as soon as a group gets a
// second row.
type singleAcc struct {
	pick   *pickAcc
	counts []int64
}

func newSingle(argType arrow.DataType, mem memory.Allocator) *singleAcc {
	return &singleAcc{pick: newPick("first", argType, mem)}
}

func (s *singleAcc) resize(n int) {
	s.counts = grow(s.counts, n)
	s.pick.resize(n)
}

func (s *singleAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	for i, g := range groups {
		if include != nil && !include[i] {
			continue
		}
		s.counts[g]++
		if s.counts[g] > 1 {
			return errScalarSubqueryRows
		}
	}
	return s.pick.update(groups, arg, include)
}

func (s *singleAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	return s.pick.finish(mem, dt)
}

func (s *singleAcc) release() { s.pick.release() }

func (s *singleAcc) stateBytes() int64 { return s.pick.stateBytes() }
