package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// TestLateSelectMatchesFilter: the prefilter's selection, taken from a batch, holds the
// rows the scan's own path (run-time filters, then the filter) keeps, and the scan applies
// only the conjuncts the prefilter left out. Columns: k (nullable int64, run-time filter
// and conjuncts), x (int64), tag (string naming the row, never in the prefilter).
func TestLateSelectMatchesFilter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	i64 := arrow.PrimitiveTypes.Int64
	k := &plan.ColumnRef{Index: 0, Name: "k", DataType: i64, Null: true}
	x := &plan.ColumnRef{Index: 1, Name: "x", DataType: i64}
	tag := &plan.ColumnRef{Index: 2, Name: "tag", DataType: arrow.BinaryTypes.String}
	cmp := func(fn string, a plan.Expr, v int64) plan.Expr {
		return &plan.Call{Func: fn, Args: []plan.Expr{a, &plan.Literal{Value: scalar.NewInt64Scalar(v)}},
			DataType: arrow.FixedWidthTypes.Boolean, Null: true}
	}
	or := func(a, b plan.Expr) plan.Expr {
		return &plan.Call{Func: "or", Args: []plan.Expr{a, b}, DataType: arrow.FixedWidthTypes.Boolean, Null: true}
	}
	tagSet := &plan.Call{Func: "is_not_null", Args: []plan.Expr{tag}, DataType: arrow.FixedWidthTypes.Boolean}
	cases := []struct {
		name      string
		filter    plan.Expr
		rf        bool
		wantCols  []int
		wantRest  bool
		wantNoPre bool
	}{
		{"whole filter", plan.Conjoin([]plan.Expr{cmp("gt", x, 30), cmp("lt", k, 800)}), false, []int{1, 0}, false, false},
		{"with run-time filter", cmp("gte", x, 50), true, []int{0, 1}, false, false},
		{"prefix", plan.Conjoin([]plan.Expr{cmp("lt", x, 90), tagSet, cmp("gt", k, 10)}), true, []int{0, 1}, true, false},
		{"run-time filter only", nil, true, []int{0}, false, false},
		{"tag first", plan.Conjoin([]plan.Expr{tagSet, cmp("lt", x, 90), cmp("lt", k, 800)}), false, []int{2, 1}, true, false},
		{"every column", or(cmp("lt", k, 5), or(cmp("lt", x, 3), tagSet)), false, nil, false, true},
	}
	for _, tc := range cases {
		for _, n := range []int{1, 7, 2000} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 3))
				s := &Scan{req: catalog.ScanRequest{Columns: []int{0, 1, 2}}, filter: tc.filter,
					env: exec.Env{Mem: mem}.WithDefaults()}
				if tc.rf {
					keys := make([]int64, 300)
					for i := range keys {
						keys[i] = rng.Int64N(1000)
					}
					build := rfColumn(mem, keys, make([]bool, len(keys)))
					f := NewRuntimeFilter(0)
					f.publish([]arrow.Array{build}, nil)
					build.Release()
					s.AddRuntimeFilter(f, 0)
				}
				pred, err := newPredicate(tc.filter, mem)
				require.NoError(t, err)
				s.pred = pred
				lf, err := s.newLateFilter()
				require.NoError(t, err)
				if tc.wantNoPre {
					require.Nil(t, lf)
					return
				}
				require.NotNil(t, lf)
				require.Equal(t, tc.wantCols, lf.pre.Columns)
				require.Equal(t, tc.wantRest, lf.rest != nil)
				filt, total := s.LateColumns()
				require.Equal(t, [2]int{len(tc.wantCols), 3}, [2]int{filt, total})

				b := lateTestBatch(rng, mem, n)
				defer b.Release()
				b.Retain()
				want := b
				if tc.rf {
					want, err = s.applyRuntimeFilters(ctx, want)
					require.NoError(t, err)
				}
				if pred != nil {
					want, err = pred.applyPooled(ctx, want)
					require.NoError(t, err)
				}
				defer want.Release()

				cols := make([]arrow.Array, len(lf.pre.Columns))
				fields := make([]arrow.Field, len(cols))
				for i, c := range lf.pre.Columns {
					cols[i], fields[i] = b.Column(c), b.Schema().Field(c)
				}
				small := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
				sel, err := lf.pre.Select(ctx, small)
				small.Release()
				require.NoError(t, err)
				got, err := lf.pre.Take(ctx, b, sel)
				require.NoError(t, err)
				if lf.rest != nil {
					got, err = lf.rest.applyPooled(ctx, got)
					require.NoError(t, err)
				}
				defer got.Release()
				require.Equal(t, tagsOf(want), tagsOf(got))
				if n == 2000 {
					require.Positive(t, want.NumRows())
					require.Less(t, want.NumRows(), int64(n))
				}
			})
		}
	}
}

// lateTestBatch makes n rows k (10% NULL, 0..999), x (0..99), tag ("r<i>").
func lateTestBatch(rng *rand.Rand, mem memory.Allocator, n int) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "tag", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for i := range n {
		if rng.IntN(10) == 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(rng.Int64N(1000))
		}
		b.Field(1).(*array.Int64Builder).Append(rng.Int64N(100))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("r%d", i))
	}
	return b.NewRecordBatch()
}

func tagsOf(b arrow.RecordBatch) []string {
	out := []string{}
	col := b.Column(2).(*array.String)
	for i := range col.Len() {
		out = append(out, col.Value(i))
	}
	return out
}
