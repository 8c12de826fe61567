package lancecat

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
)

func TestMergeRanges(t *testing.T) {
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, ts, arrow.PrimitiveTypes.Int32}
	colType := func(c int) arrow.DataType {
		if c < len(types) {
			return types[c]
		}
		return nil
	}
	pred := func(col int, op catalog.IndexOp, vs ...scalar.Scalar) *catalog.IndexExpr {
		return &catalog.IndexExpr{Kind: catalog.IndexPred, Column: col, Op: op, Values: vs}
	}
	i64 := func(v int64) scalar.Scalar { return scalar.NewInt64Scalar(v) }
	f64 := func(v float64) scalar.Scalar { return scalar.NewFloat64Scalar(v) }
	tsv := func(v int64) scalar.Scalar { return scalar.NewTimestampScalar(arrow.Timestamp(v), ts) }
	cases := []struct {
		name string
		in   []*catalog.IndexExpr
		want string // rendered conjuncts, "; "-separated
	}{
		{"between", []*catalog.IndexExpr{pred(0, catalog.IndexGe, i64(5)), pred(0, catalog.IndexLe, i64(9))},
			"#0 BETWEEN [5 9]"},
		{"upper first, other conjunct kept", []*catalog.IndexExpr{pred(1, catalog.IndexEq, f64(1)),
			pred(0, catalog.IndexLe, i64(9)), pred(0, catalog.IndexGe, i64(5))},
			"#1 = [1]; #0 BETWEEN [5 9]"},
		{"strict integers", []*catalog.IndexExpr{pred(0, catalog.IndexGt, i64(5)), pred(0, catalog.IndexLt, i64(9))},
			"#0 BETWEEN [6 8]"},
		{"half-open timestamps", []*catalog.IndexExpr{pred(2, catalog.IndexGe, tsv(100)), pred(2, catalog.IndexLt, tsv(200))},
			"#2 BETWEEN [1970-01-01 00:00:00.0001 1970-01-01 00:00:00.000199]"},
		{"strict floats stay apart", []*catalog.IndexExpr{pred(1, catalog.IndexGt, f64(5)), pred(1, catalog.IndexLe, f64(9))},
			"#1 > [5]; #1 <= [9]"},
		{"inclusive floats merge", []*catalog.IndexExpr{pred(1, catalog.IndexGe, f64(5)), pred(1, catalog.IndexLe, f64(9))},
			"#1 BETWEEN [5 9]"},
		{"strict with another literal type stays apart", []*catalog.IndexExpr{pred(3, catalog.IndexGt, i64(5)),
			pred(3, catalog.IndexLe, i64(9))}, "#3 > [5]; #3 <= [9]"},
		{"overflow stays apart", []*catalog.IndexExpr{pred(0, catalog.IndexGt, i64(1<<63-1)), pred(0, catalog.IndexLe, i64(9))},
			"#0 > [9223372036854775807]; #0 <= [9]"},
		{"null bound stays apart", []*catalog.IndexExpr{pred(0, catalog.IndexGt, scalar.MakeNullScalar(arrow.PrimitiveTypes.Int64)),
			pred(0, catalog.IndexLe, i64(9))}, "#0 > [null]; #0 <= [9]"},
		{"different columns", []*catalog.IndexExpr{pred(0, catalog.IndexGe, i64(5)), pred(1, catalog.IndexLe, f64(9))},
			"#0 >= [5]; #1 <= [9]"},
		{"two lower bounds: the first merges", []*catalog.IndexExpr{pred(0, catalog.IndexGe, i64(5)), pred(0, catalog.IndexGe, i64(7)),
			pred(0, catalog.IndexLe, i64(9))}, "#0 BETWEEN [5 9]; #0 >= [7]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range mergeRanges(tc.in, colType) {
				got = append(got, render(e))
			}
			require.Equal(t, tc.want, strings.Join(got, "; "))
		})
	}
}

func render(e *catalog.IndexExpr) string {
	vs := make([]string, len(e.Values))
	for i, v := range e.Values {
		vs[i] = v.String()
	}
	return "#" + strconv.Itoa(e.Column) + " " + e.Op.String() + " [" + strings.Join(vs, " ") + "]"
}
