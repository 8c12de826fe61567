package ops

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// selectTestBatch returns n random rows: #0 string, #1 large string, #2 and #3 date32, #4
// and #5 decimal(12,2), #6 the row number; every column but #6 has NULLs.
func selectTestBatch(mem memory.Allocator, n int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(5, 6))
	pool := []string{"", "AIR", "AIR REG", "MAIL", "SHIP", "ÄIR", "日本語", "DELIVER IN PERSON", "NONE", "air"}
	dec := &arrow.Decimal128Type{Precision: 12, Scale: 2}
	types := []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.FixedWidthTypes.Date32,
		arrow.FixedWidthTypes.Date32, dec, dec, arrow.PrimitiveTypes.Int64}
	fields := make([]arrow.Field, len(types))
	cols := make([]arrow.Array, len(types))
	for c, typ := range types {
		fields[c] = arrow.Field{Name: string(rune('a' + c)), Type: typ, Nullable: true}
		b := array.NewBuilder(mem, typ)
		for i := range n {
			if c < 6 && rng.IntN(6) == 0 {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.StringBuilder:
				bb.Append(pool[rng.IntN(len(pool))])
			case *array.LargeStringBuilder:
				bb.Append(pool[rng.IntN(len(pool))])
			case *array.Date32Builder:
				bb.Append(arrow.Date32(rng.IntN(5)))
			case *array.Decimal128Builder:
				bb.Append(decimal128.FromI64(int64(rng.IntN(5) * 100))) // 0.00 to 4.00
			case *array.Int64Builder:
				bb.Append(int64(i))
			}
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	return newBatchOwned(arrow.NewSchema(fields, nil), cols, int64(n))
}

// TestRowSelectors compares filters whose conjuncts take the selection-vector paths (string
// =, <>, IN; column-to-column comparisons) with the general evaluation of the same
// condition, on slices of 1, 3 and all rows of a random batch with NULLs, empty and
// multi-byte strings.
func TestRowSelectors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bln, str, lstr := arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString
	dt, dec := arrow.FixedWidthTypes.Date32, &arrow.Decimal128Type{Precision: 12, Scale: 2}
	col := func(i int, typ arrow.DataType) plan.Expr { return &plan.ColumnRef{Index: i, DataType: typ, Null: true} }
	s := func(v string) plan.Expr { return &plan.Literal{Value: scalar.NewStringScalar(v)} }
	ls := func(v string) plan.Expr { return &plan.Literal{Value: scalar.NewLargeStringScalar(v)} }
	null := &plan.Literal{Value: scalar.MakeNullScalar(str)}
	d := func(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }
	call := func(fn string, args ...plan.Expr) plan.Expr {
		return &plan.Call{Func: fn, Args: args, DataType: bln, Null: true}
	}
	in := func(x plan.Expr, vals ...plan.Expr) plan.Expr {
		acc := call("equal", x, vals[0])
		for _, v := range vals[1:] {
			acc = call("or", acc, call("equal", x, v))
		}
		return acc
	}
	s0 := col(0, str)
	many := []plan.Expr{s("a"), s("b"), s("c"), s("d"), s("MAIL"), s("e"), s("f"), s("日本語"), s(""), s("g")}
	cases := []struct {
		name string
		cond plan.Expr
		fast int // conjuncts with a selection-vector form (a row selector or a ConstCompare)
	}{
		{"eq", call("equal", s0, s("AIR")), 1},
		{"eq-lit-left", call("equal", s("AIR REG"), s0), 1},
		{"eq-empty", call("equal", s0, s("")), 1},
		{"ne", call("not_equal", s0, s("MAIL")), 1},
		{"ne-null", call("not_equal", s0, null), 1},
		{"eq-null", call("equal", s0, null), 1},
		{"in-2", in(s0, s("AIR"), s("AIR REG")), 1},
		{"in-null", in(s0, s("SHIP"), null), 1},
		{"in-10-hashed", in(s0, many...), 1},
		{"large-in", in(col(1, lstr), ls("ÄIR"), ls("NONE"), ls("")), 1},
		{"or-two-columns", call("or", call("equal", s0, s("AIR")), call("equal", col(1, lstr), ls("AIR"))), 1},
		{"or-of-ands", call("or", call("or",
			call("and", call("gte", col(4, dec), d(1)), call("lte", col(4, dec), d(2)), in(s0, s("AIR"), s(""))),
			call("and", call("gte", col(4, dec), d(3)), call("lt", col(2, dt), col(3, dt)))),
			call("and", call("equal", col(5, dec), d(0)), call("not_equal", col(1, lstr), ls("NONE")))), 1},
		{"or-with-null-branch", call("or", call("equal", s0, null), call("gt", col(4, dec), d(2))), 1},
		{"or-unselectable-branch", call("or", call("equal", s0, s("AIR")), call("like", s0, s("%I%"))), 0},
		{"and-with-or", call("and", call("or", call("lt", col(2, dt), col(3, dt)), call("equal", col(4, dec), d(1))),
			call("not_equal", s0, s("MAIL"))), 2},
		{"date-lt", call("lt", col(2, dt), col(3, dt)), 1},
		{"date-gte", call("gte", col(3, dt), col(2, dt)), 1},
		{"decimal-eq", call("equal", col(4, dec), col(5, dec)), 1},
		{"decimal-ne", call("not_equal", col(5, dec), col(4, dec)), 1},
		{"chain", call("and", call("and", in(s0, s("MAIL"), s("SHIP"), s("")), call("lt", col(2, dt), col(3, dt))),
			call("not_equal", col(1, lstr), ls("air"))), 3},
		{"chain-ne-first", call("and", call("lte", col(3, dt), col(2, dt)), call("not_equal", s0, s("AIR"))), 2},
	}
	ctx := context.Background()
	full := selectTestBatch(mem, 200)
	defer full.Release()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := newPredicate(c.cond, mem)
			require.NoError(t, err)
			fast := 0
			for _, step := range p.steps {
				for _, pc := range step {
					if pc.sel != nil || pc.fast != nil {
						fast++
					}
				}
			}
			require.Equal(t, c.fast, fast)
			general, err := expr.Compile(c.cond, mem)
			require.NoError(t, err)
			for _, size := range []int64{1, 3, 200} {
				var want, got []int64
				for off := int64(0); off < full.NumRows(); off += size {
					b := full.NewSlice(off, min(off+size, full.NumRows()))
					v, err := general.Eval(ctx, b)
					require.NoError(t, err)
					sel, err := kernel.SelectTrue(v, nil)
					v.Release()
					require.NoError(t, err)
					ids := b.Column(6).(*array.Int64)
					for _, i := range sel {
						want = append(want, ids.Value(int(i)))
					}
					out, err := p.apply(ctx, b) // takes b
					require.NoError(t, err)
					ids = out.Column(6).(*array.Int64)
					for i := range ids.Len() {
						got = append(got, ids.Value(i))
					}
					out.Release()
				}
				require.Equal(t, want, got, "batch size %d", size)
				if c.name != "ne-null" && c.name != "eq-null" {
					require.NotEmpty(t, want, "a case that keeps no row tests little")
				}
			}
		})
	}
}
