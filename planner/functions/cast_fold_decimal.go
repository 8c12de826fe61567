package functions

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

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
		return &plan.Literal{Value: scalar.NewFloat32Scalar(float32(decimalToFloat(v.Value, from.Scale, 32)))}, true, nil
	}
	return &plan.Literal{Value: scalar.NewFloat64Scalar(decimalToFloat(v.Value, from.Scale, 64))}, true, nil
}

// decimalToFloat returns the float (of bitSize 32 or 64) nearest to the decimal n×10^-scale,
// as DuckDB's cast gives: CAST(0.3 AS DOUBLE) is the double nearest 0.3, which arrow's
// ToFloat64 (a multiplication by an inexact power of ten) misses.
func decimalToFloat(n decimal128.Num, scale int32, bitSize int) float64 {
	f, err := strconv.ParseFloat(n.ToString(scale), bitSize)
	if err != nil { // not reached: ToString spells a finite decimal number
		return n.ToFloat64(scale)
	}
	return f
}
