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

// TestAggregateCharKeysLeftOut: a key that only rows left out by the fused filter hold ("Z")
// gets no group and does not keep the batches off the one-byte table, whose groups for the
// left-out rows (their key's, or 0) count nowhere: not in the general sums, nor in the fused
// lane sums (a decimal column p), which add every row and take the left-out ones out again.
func TestAggregateCharKeysLeftOut(t *testing.T) {
	sch := schema(field("f", str), field("l", str), field("x", i64), field("p", dec(15, 2)))
	rows := charRows(400)
	for j := range rows {
		rows[j] = append(rows[j], fmt.Sprintf("%d.%02d", j*7%1000, j%100))
		if j%7 == 3 {
			rows[j][0], rows[j][2] = "Z", int64(95) // left out by x < 90
		}
	}
	x, p := col(2, i64), col(3, dec(15, 2))
	charPath := fastPath{ops.DisableSmallKeys, ops.CharKeyBatches}
	for _, keys := range [][]plan.Expr{{col(0, str)}, {col(0, str), col(1, str)}} {
		aggs := []plan.AggCall{agg("count", i64, false), agg("sum", dec(38, 0), false, x),
			agg("sum", dec(38, 2), false, p), agg("avg", f64, false, p)}
		requireFastPath(t, fastCase{name: fmt.Sprintf("keys=%d", len(keys)), schema: sch, rows: rows,
			keys: keys, aggs: aggs, cond: call("lt", bln, x, lit(int64(90)))}, charPath)
	}
}
