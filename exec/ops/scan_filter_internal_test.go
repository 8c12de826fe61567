package ops

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestApplyPooled compares the pooled filter (selection vectors reused across batches and
// steps) with apply on slices of several sizes of a random batch with NULLs: conditions
// keeping every row, some rows, none, and ones that need the general evaluation.
func TestApplyPooled(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bln, str, i64 := arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	col := func(i int, typ arrow.DataType) plan.Expr { return &plan.ColumnRef{Index: i, DataType: typ, Null: true} }
	s := func(v string) plan.Expr { return &plan.Literal{Value: scalar.NewStringScalar(v)} }
	n := func(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }
	call := func(fn string, args ...plan.Expr) plan.Expr {
		return &plan.Call{Func: fn, Args: args, DataType: bln, Null: true}
	}
	between := func(lo, hi int64) plan.Expr {
		return call("and", call("gte", col(6, i64), n(lo)), call("lte", col(6, i64), n(hi)))
	}
	cases := []struct {
		name string
		cond plan.Expr
		kept int // rows of the 200 kept
	}{
		{"range-all", between(0, 199), 200},
		{"range-part", between(37, 150), 114},
		{"range-none", between(500, 600), 0},
		{"range-and-string", call("and", between(10, 189), call("not_equal", col(0, str), s("MAIL"))), -1},
		{"string-eq-nulls", call("equal", col(0, str), s("AIR")), -1},
		{"like-general", call("like", col(0, str), s("%I%")), -1},
		{"range-then-like", call("and", between(20, 120), call("like", col(1, arrow.BinaryTypes.LargeString), s("%A%"))), -1},
	}
	ctx := context.Background()
	full := selectTestBatch(mem, 200)
	defer full.Release()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := newPredicate(c.cond, mem)
			require.NoError(t, err)
			for _, size := range []int64{1, 7, 64, 200} {
				kept := 0
				for off := int64(0); off < full.NumRows(); off += size {
					b := full.NewSlice(off, min(off+size, full.NumRows()))
					b.Retain()
					want, err := p.apply(ctx, b)
					require.NoError(t, err)
					got, err := p.applyPooled(ctx, b)
					require.NoError(t, err)
					require.Equal(t, want.NumRows(), got.NumRows())
					require.True(t, array.RecordEqual(want, got), "size %d offset %d", size, off)
					kept += int(got.NumRows())
					want.Release()
					got.Release()
				}
				if c.kept >= 0 {
					require.Equal(t, c.kept, kept, "size %d", size)
				}
			}
		})
	}
}
