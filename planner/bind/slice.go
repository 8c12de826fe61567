package bind

import (
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// stringSubscript binds s[i] on a string: the i-th character (1-based, negative from the
// end), the empty string out of range, as DuckDB's substring(s, i, 1). Slices s[a:b] are array_slice
// calls (planner/functions/list_slice.go).
func stringSubscript(s, idx plan.Expr) (plan.Expr, error) {
	return functions.NewCall("substring", []plan.Expr{s, idx, &plan.Literal{Value: scalar.NewInt64Scalar(1)}})
}
