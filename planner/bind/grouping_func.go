package bind

import (
	"strconv"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

// isGroupingCall reports whether e is GROUPING(...) (or its alias grouping_id).
func isGroupingCall(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	return ok && f.Over == nil && (f.Name == "grouping" || f.Name == "grouping_id")
}

// usesGrouping reports whether the select list or HAVING of s calls GROUPING().
func usesGrouping(s *ast.Select) bool {
	for _, it := range s.Items {
		if it.Expr != nil && ast.Any(it.Expr, isGroupingCall) {
			return true
		}
	}
	return s.Having != nil && ast.Any(s.Having, isGroupingCall)
}

// checkGroupingCalls verifies that every argument of every GROUPING() call in s is one of
// the grouping expressions all, as DuckDB requires.
func checkGroupingCalls(s *ast.Select, all []ast.Expr) error {
	keys := map[string]bool{}
	for _, g := range all {
		keys[ast.SQL(g)] = true
	}
	var err error
	check := func(e ast.Expr) bool {
		if !isGroupingCall(e) || err != nil {
			return false
		}
		f := e.(*ast.FuncCall)
		if len(f.Args) == 0 || f.Star || f.Distinct {
			err = dberr.New(dberr.Binder, "GROUPING requires at least one child").At(f.Pos.Line, f.Pos.Column)
		}
		for _, a := range f.Args {
			if !keys[ast.SQL(a)] && err == nil {
				err = dberr.New(dberr.Binder, "GROUPING child must be a grouping column").At(a.Position().Line, a.Position().Column)
			}
		}
		return false
	}
	for _, it := range s.Items {
		if it.Expr != nil {
			ast.Any(it.Expr, check)
		}
	}
	if s.Having != nil {
		ast.Any(s.Having, check)
	}
	return err
}

// groupingValue is the value of the GROUPING() call e in the branch grouped by the
// expressions whose SQL text is in in: one bit per argument, the first argument the most
// significant, set when that argument is not grouped. It is a BIGINT, as in DuckDB.
func groupingValue(e ast.Expr, in map[string]bool) (ast.Expr, bool) {
	if !isGroupingCall(e) {
		return nil, false
	}
	f := e.(*ast.FuncCall)
	var v int64
	for _, a := range f.Args {
		v <<= 1
		if !in[ast.SQL(a)] {
			v |= 1
		}
	}
	lit := &ast.Literal{Pos: f.Pos, Kind: ast.LitInt, Text: strconv.FormatInt(v, 10)}
	return &ast.Cast{Pos: f.Pos, X: lit, Type: ast.TypeName{Name: "BIGINT"}}, true
}

// selectHasAggregate reports whether the select list of s calls an aggregate.
func selectHasAggregate(s *ast.Select) bool {
	for _, it := range s.Items {
		if it.Expr != nil && containsAggregate(it.Expr) {
			return true
		}
	}
	return false
}

// alwaysTrueMeasure is count(*) >= 0: a HAVING that keeps the one row of an empty grouping
// set and gives its aggregate a measure.
func alwaysTrueMeasure(pos ast.Pos) ast.Expr {
	count := &ast.FuncCall{Pos: pos, Name: "count", Star: true}
	zero := &ast.Literal{Pos: pos, Kind: ast.LitInt, Text: "0"}
	return &ast.Binary{Pos: pos, Op: ">=", L: count, R: zero}
}
