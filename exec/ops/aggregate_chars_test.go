package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var charSchema = schema(field("f", str), field("l", str), field("x", i64))

// charRows draws one-byte keys (the zero byte and '~' among them) with, from row 200 on, a
// few values the one-byte table cannot take: NULL, empty and longer strings in either column,
// an empty one next to a two-byte one (so that a batch may hold as many bytes as rows).
func charRows(n int) exectest.Rows {
	r := rand.New(rand.NewPCG(5, 8))
	firsts, seconds := []string{"A", "N", "R", "\x00"}, []string{"F", "O", "~"}
	var rows exectest.Rows
	for j := range n {
		var f, l any = firsts[r.IntN(len(firsts))], seconds[r.IntN(len(seconds))]
		if j >= 200 {
			switch j % 23 {
			case 0:
				f = nil
			case 5:
				l = ""
			case 6:
				l = "FO" // with the empty value above: as many bytes as rows, each a known key
			case 11:
				f = "NR"
			case 12:
				f = ""
			case 17:
				l = nil
			}
		}
		rows = append(rows, []any{f, l, int64(r.IntN(100))})
	}
	return rows
}

// TestAggregateCharKeys: the one-byte key table gives the groups the general key encoding
// gives, for one and two key columns, with and without a fused filter (masked and taken
// batches), at every batch size and layout (sliced offsets, junk under NULLs), and it is used.
func TestAggregateCharKeys(t *testing.T) {
	rows := charRows(400)
	x := col(2, i64)
	conds := map[string]plan.Expr{
		"none": nil,
		"most": call("lt", bln, x, lit(int64(90))),
		"few":  call("lt", bln, x, lit(int64(10))),
	}
	charPath := fastPath{ops.DisableSmallKeys, ops.CharKeyBatches}
	for name, cond := range conds {
		for _, keys := range [][]plan.Expr{{col(0, str)}, {col(0, str), col(1, str)}, {col(1, str), col(0, str)}} {
			aggs := []plan.AggCall{agg("count", i64, false), agg("sum", dec(38, 0), false, x)}
			name := fmt.Sprintf("%s/keys=%d/first=%d", name, len(keys), keys[0].(*plan.ColumnRef).Index)
			requireFastPath(t, fastCase{name: name, schema: charSchema, rows: rows, keys: keys, aggs: aggs, cond: cond}, charPath)
		}
	}
}
