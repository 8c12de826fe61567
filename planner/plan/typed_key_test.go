package plan_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestTypedKey: expressions that print alike but differ in a type get different keys; equal
// expressions get equal keys.
func TestTypedKey(t *testing.T) {
	dec := func(p, s int32) *arrow.Decimal128Type { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	lit := func(v int64, p, s int32) plan.Expr {
		return &plan.Literal{Value: scalar.NewDecimal128Scalar(decimal128.FromI64(v), dec(p, s))}
	}
	p := &plan.ColumnRef{Index: 1, Name: "p", DataType: dec(15, 2)}
	mul := func(l plan.Expr, dt arrow.DataType) plan.Expr {
		return &plan.Call{Func: "multiply", Args: []plan.Expr{p, l}, DataType: dt}
	}
	oneTenths, oneHundredths := lit(10, 2, 1), lit(100, 3, 2) // 1.0 and 1.00
	require.Equal(t, oneTenths.String(), oneHundredths.String(), "the case this guards against: String leaves the scale out")
	require.NotEqual(t, plan.TypedKey(oneTenths), plan.TypedKey(oneHundredths))
	require.NotEqual(t, plan.TypedKey(mul(oneTenths, dec(17, 3))), plan.TypedKey(mul(oneHundredths, dec(18, 4))))
	require.Equal(t, plan.TypedKey(mul(oneTenths, dec(17, 3))), plan.TypedKey(mul(lit(10, 2, 1), dec(17, 3))))
	c1 := &plan.Cast{Input: p, DataType: dec(20, 2)}
	c2 := &plan.Cast{Input: p, DataType: dec(20, 3)}
	require.NotEqual(t, plan.TypedKey(c1), plan.TypedKey(c2))
}
