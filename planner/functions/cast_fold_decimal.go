package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/decfloat"
	"github.com/flightd/flightd/planner/plan"
)

// foldDecimalCast converts a decimal literal to another decimal type (rescaled, rounding
// half away from zero when the scale shrinks) or to a float. ok is false when the value
// does not fit the target precision (the run-time cast reports the error).
func foldDecimalCast(v *scalar.Decimal128, to arrow.DataType) (plan.Expr, bool, error) {
	from := v.DataType().(*arrow.Decimal128Type)
	switch t := to.(type) {
	case *arrow.Decimal128Type:
		num := v.Value
		if t.Scale >= from.Scale {
			num = num.IncreaseScaleBy(t.Scale - from.Scale)
		} else {
			num = num.ReduceScaleBy(from.Scale-t.Scale, true)
		}
		if !num.FitsInPrecision(t.Precision) {
			return nil, false, nil
		}
		return &plan.Literal{Value: scalar.NewDecimal128Scalar(num, t)}, true, nil
	case *arrow.Float32Type:
		return &plan.Literal{Value: scalar.NewFloat32Scalar(float32(decfloat.ToFloat64(v.Value, from.Scale)))}, true, nil
	}
	return &plan.Literal{Value: scalar.NewFloat64Scalar(decfloat.ToFloat64(v.Value, from.Scale))}, true, nil
}
