package substrait

import (
	"fmt"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// patternFuncs are the pattern-matching functions whose Substrait form may carry a third
// argument, the escape character (the standard extension's like and DataFusion's ilike).
var patternFuncs = map[string]bool{"like": true, "ilike": true, "not_like": true, "not_ilike": true}

// dropNullEscape removes the escape argument of a pattern match when it is a NULL literal
// (DataFusion always sends one: "no escape character"). Any other escape character is not
// supported yet.
func dropNullEscape(name string, args []plan.Expr, path string) ([]plan.Expr, error) {
	if !patternFuncs[name] || len(args) != 3 {
		return args, nil
	}
	if lit, ok := args[2].(*plan.Literal); ok && (lit.Value == nil || !lit.Value.IsValid()) {
		return args[:2], nil
	}
	return nil, dberr.NotSupported(fmt.Sprintf("%s with an ESCAPE character (at %s)", name, path))
}
