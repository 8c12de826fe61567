package build

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// fixedRows is a table of a given row count for estimates (only Stats is called).
type fixedRows struct {
	catalog.Table
	rows int64
}

func (f fixedRows) Stats() catalog.Stats { return catalog.Stats{Rows: f.rows} }

// Semi and anti joins with a small left input, and left joins whose right input is much
// larger, stream their right input (flipped); the others stream their left input.
func TestJoinProbe(t *testing.T) {
	scan := func(rows int64) *plan.Scan { return &plan.Scan{Table: fixedRows{rows: rows}, Limit: -1} }
	cases := []struct {
		typ         plan.JoinType
		left, right int64
		flipped, ok bool
	}{
		{plan.SemiJoin, 1000, 10, true, true},
		{plan.AntiJoin, flipRows, 1 << 30, true, true},
		{plan.AntiJoin, flipRows + 1, 1 << 30, false, true},
		{plan.LeftJoin, 1000, 16001, true, true},
		{plan.LeftJoin, 1000, 16000, false, true},
		{plan.LeftJoin, flipRows * 2, 1 << 40, false, true},
		{plan.InnerJoin, 10, 1 << 30, false, true},
		{plan.RightJoin, 10, 1 << 30, false, false},
	}
	for _, c := range cases {
		l, r := scan(c.left), scan(c.right)
		j := &plan.Join{Left: l, Right: r, Type: c.typ, LeftKeys: []plan.Expr{&plan.ColumnRef{}}, RightKeys: []plan.Expr{&plan.ColumnRef{}}}
		probe, flipped, ok := joinProbe(j)
		require.Equal(t, c.ok, ok, "%s %d/%d", c.typ, c.left, c.right)
		require.Equal(t, c.flipped, flipped, "%s %d/%d", c.typ, c.left, c.right)
		if ok {
			want := plan.Node(l)
			if c.flipped {
				want = r
			}
			require.Same(t, want, probe)
		}
	}
}
