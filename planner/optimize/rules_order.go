package optimize

import (
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// orderConjuncts reorders the conjuncts of every scan filter, Filter node and join
// condition (rules_fold.go's rewriteConditions) so that the cheap ones run first (DuckDB's expression-cost filter ordering): filters apply their
// conjuncts in order, each on the rows the earlier ones kept, so a selective comparison of
// an integer or date column with a constant should narrow the rows before a string IN list
// or a LIKE looks at them (TPC-H q12: the receipt date range before l_shipmode IN (...)).
//
// Only conjuncts that cannot fail on any row (cannotFail) move, and only to the front:
// they come first ordered by estimated cost (ties keep their order), then every other
// conjunct in its original order. So a conjunct that may fail (a division, a cast that
// may overflow) sees at most the rows it saw before, and a guard written before it
// ("b <> 0 AND a // b > 1") still runs before it.
func orderConjuncts(n plan.Node) plan.Node { return rewriteConditions(n, orderedConjunction) }

// orderedConjunction returns e's conjuncts in evaluation order (see orderConjuncts); e
// itself when that is e's order.
func orderedConjunction(e plan.Expr) plan.Expr {
	cs := plan.SplitConjuncts(e)
	if len(cs) < 2 {
		return e
	}
	type ranked struct {
		e    plan.Expr
		cost int
	}
	var movable []ranked
	var fixed []plan.Expr
	for _, c := range cs {
		if cannotFail(c) {
			movable = append(movable, ranked{c, exprCost(c)})
		} else {
			fixed = append(fixed, c)
		}
	}
	slices.SortStableFunc(movable, func(a, b ranked) int { return cmp.Compare(a.cost, b.cost) })
	out := make([]plan.Expr, 0, len(cs))
	for _, m := range movable {
		out = append(out, m.e)
	}
	out = append(out, fixed...)
	changed := false
	for i := range cs {
		changed = changed || out[i] != cs[i]
	}
	if !changed {
		return e
	}
	return plan.Conjoin(out)
}

// neverFailing are the functions that return a value (possibly NULL) for any arguments.
var neverFailing = map[string]bool{
	"equal": true, "not_equal": true, "lt": true, "lte": true, "gt": true, "gte": true,
	"and": true, "or": true, "not": true, "is_null": true, "is_not_null": true,
	"is_distinct_from": true, "is_not_distinct_from": true,
}

// likeFuncs fail only on a bad pattern, which is a property of a constant pattern rather
// than of a row.
var likeFuncs = map[string]bool{"like": true, "not_like": true, "ilike": true, "not_ilike": true}

// cannotFail reports whether evaluating e cannot raise an error on any row. An expression
// without column references counts as such: its value does not depend on the row (DuckDB
// folds it, and reports its error, before reading any row).
func cannotFail(e plan.Expr) bool {
	if _, anyCol := plan.ColumnRange(e, 0, 0); !anyCol {
		return !volatile(e)
	}
	switch x := e.(type) {
	case *plan.ColumnRef:
		return true
	case *plan.Cast:
		return cannotFail(x.Input) && (x.Try || widening(x.Input.Type(), x.DataType))
	case *plan.Call:
		switch {
		case neverFailing[x.Func]:
		case likeFuncs[x.Func] && len(x.Args) == 2:
			if _, anyCol := plan.ColumnRange(x.Args[1], 0, 0); anyCol {
				return false // a pattern read from a column
			}
		default:
			return false
		}
		for _, a := range x.Args {
			if !cannotFail(a) {
				return false
			}
		}
		return true
	}
	return false
}

// widening reports whether every value of type from converts to type to without error:
// a number to a floating-point type, or an integer to a wider integer of the same sign.
func widening(from, to arrow.DataType) bool {
	fid, tid := from.ID(), to.ID()
	numeric := arrow.IsInteger(fid) || arrow.IsFloating(fid) || fid == arrow.DECIMAL128
	if numeric && arrow.IsFloating(tid) {
		return true
	}
	if arrow.IsInteger(fid) && arrow.IsInteger(tid) {
		fw, tw := from.(arrow.FixedWidthDataType).BitWidth(), to.(arrow.FixedWidthDataType).BitWidth()
		return arrow.IsSignedInteger(fid) == arrow.IsSignedInteger(tid) && tw >= fw
	}
	return false
}

// exprCost estimates the per-row cost of evaluating e, in units of a fixed-width
// comparison with a constant (the filters' fastest path).
func exprCost(e plan.Expr) int {
	if _, anyCol := plan.ColumnRange(e, 0, 0); !anyCol {
		return 0 // a constant
	}
	switch x := e.(type) {
	case *plan.ColumnRef:
		return 0
	case *plan.Cast:
		return 2 + exprCost(x.Input)
	case *plan.Call:
		sum := 0
		for _, a := range x.Args {
			sum += exprCost(a)
		}
		switch {
		case x.Func == "and" || x.Func == "or" || x.Func == "not":
			return 1 + sum
		case neverFailing[x.Func]:
			return compareCost(x) + sum
		case likeFuncs[x.Func]:
			return 20 + sum
		}
		return 10 + sum
	}
	return 10
}

// compareCost is the cost of a comparison or NULL test itself: 1 for a NULL test or a
// fixed-width column against a constant, 2 for two fixed-width values, 6 for strings and
// other variable-width or nested values.
func compareCost(c *plan.Call) int {
	if len(c.Args) == 1 {
		return 1
	}
	for _, a := range c.Args {
		if _, ok := a.Type().(arrow.FixedWidthDataType); !ok {
			return 6
		}
	}
	for _, a := range c.Args {
		if _, anyCol := plan.ColumnRange(a, 0, 0); !anyCol {
			return 1
		}
	}
	return 2
}
