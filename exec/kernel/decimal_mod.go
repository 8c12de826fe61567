package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimalModulus is a % b over two decimal arrays of one type (the planner unifies them):
// the remainder has the sign of a, as in DuckDB; b = 0 is a division-by-zero error.
func decimalModulus(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	dt := a.DataType().(*arrow.Decimal128Type)
	av := arrow.GetValues[decimal128.Num](a.Data(), 1)
	bv := arrow.GetValues[decimal128.Num](b.Data(), 1)
	out := NewFixed[decimal128.Num](mem, dt, a.Len())
	for i := range a.Len() {
		if !IsValid(a, i) || !IsValid(b, i) {
			out.SetNull(i)
			continue
		}
		if bv[i].Sign() == 0 {
			out.Release()
			return nil, errDivisionByZero(av[i].ToString(dt.Scale) + " % " + bv[i].ToString(dt.Scale))
		}
		_, rem := av[i].Div(bv[i])
		out.Values[i] = rem
	}
	return out.Finish(), nil
}
