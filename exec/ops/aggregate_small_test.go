package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var packedSchema = schema(field("s", str), field("c", str), field("i", arrow.PrimitiveTypes.Int16), field("x", i64))

// packedRows draws keys from distinct combinations of a string (sometimes NULL, empty, or too
// long to pack), a one-byte string (sometimes NULL or empty) and an int16 (sometimes NULL).
func packedRows(n, distinct int) exectest.Rows {
	r := rand.New(rand.NewPCG(uint64(distinct), 3))
	var rows exectest.Rows
	for j := range n {
		k := j * 7919 % distinct // every key, in a scattered order
		if j >= distinct {
			k = r.IntN(distinct)
		}
		var s, c, i any = fmt.Sprintf("k%d", k%97), string(rune('a' + k%5)), int16(k / 485)
		switch {
		case k%41 == 0:
			s = nil
		case k == 43:
			s = "much-longer-than-seven" // too long to pack: that batch takes the general path
		case k%41 == 2:
			s = ""
		}
		switch k % 7 {
		case 3:
			c = nil
		case 4:
			c = ""
		}
		if k%53 == 5 {
			i = nil
		}
		rows = append(rows, []any{s, c, i, int64(r.IntN(100))})
	}
	return rows
}

// TestAggregateSmallKeys: packed keys give the groups the general key encoding gives, for
// few groups, more than the first table holds (rehashing) and more than the cache keeps
// (turned off), at every batch size.
func TestAggregateSmallKeys(t *testing.T) {
	keys := []plan.Expr{col(0, str), col(1, str), col(2, arrow.PrimitiveTypes.Int16)}
	aggs := []plan.AggCall{agg("count", i64, false), agg("sum", dec(38, 0), false, col(3, i64))}
	out := aggOutSchema(keys, aggs)
	for _, distinct := range []int{4, 40, 1000, 4200} {
		rows := packedRows(distinct+100, distinct)
		make := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, keys, aggs, out, env) }
		want := generalAggregate(t, packedSchema, make, packedKeyPath, rows)
		require.Greater(t, len(want), distinct*9/10, "groups")
		var made []*ops.Aggregate
		c := exectest.Case{Name: fmt.Sprintf("distinct=%d", distinct), Schema: packedSchema, Input: rows, Expected: want,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				a := make(in, env)
				made = append(made, a)
				return a, nil
			}}
		if distinct > 100 { // one row per batch would take the general path (slow) for each
			defer func(sizes []int) { exectest.BatchSizes = sizes }(exectest.BatchSizes)
			exectest.BatchSizes = []int{64, 0}
		}
		exectest.Run(t, c)
		cached := 0
		for _, a := range made {
			cached = max(cached, ops.SmallKeysCached(a))
		}
		if distinct <= 1000 {
			require.Positive(t, cached, "the packed keys were not used")
		}
	}
}
