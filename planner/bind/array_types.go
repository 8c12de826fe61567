package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/ast"
)

// arrayTypeFromName maps T[n] to a fixed-size list of n T and T[] to a list of T, the
// last suffix outermost (INTEGER[2][] is a list of INTEGER[2]), as DuckDB does.
func arrayTypeFromName(tn ast.TypeName) (arrow.DataType, error) {
	inner := tn
	inner.Dims = tn.Dims[:len(tn.Dims)-1]
	elem, err := typeFromName(inner)
	if err != nil {
		return nil, err
	}
	if n := tn.Dims[len(tn.Dims)-1]; n >= 0 {
		return arrow.FixedSizeListOf(int32(n), elem), nil
	}
	return arrow.ListOf(elem), nil
}
