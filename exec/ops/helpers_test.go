package ops_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/planner/plan"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	i64  = arrow.PrimitiveTypes.Int64
	i32  = arrow.PrimitiveTypes.Int32
	f64  = arrow.PrimitiveTypes.Float64
	str  = arrow.BinaryTypes.String
	bln  = arrow.FixedWidthTypes.Boolean
	dt32 = arrow.FixedWidthTypes.Date32
)

func col(i int, dt arrow.DataType) *plan.ColumnRef {
	return &plan.ColumnRef{Index: i, DataType: dt, Null: true}
}

func lit(v any) *plan.Literal { return &plan.Literal{Value: scalar.MakeScalar(v)} }

func call(fn string, dt arrow.DataType, args ...plan.Expr) *plan.Call {
	return &plan.Call{Func: fn, Args: args, DataType: dt, Null: true}
}

func schema(fields ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fields, nil) }

func field(name string, dt arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: dt, Nullable: true}
}
