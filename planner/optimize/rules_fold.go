package optimize

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// foldConstants evaluates the constant integer arithmetic and the casts of literals in
// filter and join conditions once, at plan time, so that filters do not recompute them for
// every row (TPC-H q19's l_quantity <= 1 + 10 binds to a decimal cast of add(1, 10), which
// the filter would otherwise evaluate and rescale for six million rows). Only exact folds
// happen: integer add, subtract, multiply and negate whose result fits the call's type,
// and the literal casts functions.Cast folds; anything else is left to run time, which
// reports its errors as before.
func foldConstants(n plan.Node) plan.Node { return rewriteConditions(n, foldExpr) }

// rewriteConditions applies f to the filter of every scan, the condition of every Filter
// and the residual condition of every join, bottom-up; f returns its argument itself when
// it changes nothing, and the node is then kept.
func rewriteConditions(n plan.Node, f func(plan.Expr) plan.Expr) plan.Node {
	return transformUp(n, func(n plan.Node) plan.Node {
		switch x := n.(type) {
		case *plan.Scan:
			if c := f(x.Filter); c != x.Filter {
				out := copyScan(x)
				out.Filter = c
				return out
			}
		case *plan.Filter:
			if c := f(x.Cond); c != x.Cond {
				return &plan.Filter{Input: x.Input, Cond: c}
			}
		case *plan.Join:
			if c := f(x.Cond); c != x.Cond {
				return plan.NewJoin(x.Left, x.Right, x.Type, x.LeftKeys, x.RightKeys, c)
			}
		}
		return n
	})
}

// foldExpr returns e with its foldable constant subexpressions replaced by literals; e
// itself when nothing folds (nil for nil).
func foldExpr(e plan.Expr) plan.Expr {
	switch x := e.(type) {
	case *plan.Call:
		var args []plan.Expr
		for i, a := range x.Args {
			if f := foldExpr(a); f != a {
				if args == nil {
					args = append([]plan.Expr{}, x.Args...)
				}
				args[i] = f
			}
		}
		out := x
		if args != nil {
			c := *x
			c.Args = args
			out = &c
		}
		if lit := foldArith(out); lit != nil {
			return lit
		}
		return out
	case *plan.Cast:
		in := foldExpr(x.Input)
		if lit, ok := in.(*plan.Literal); ok && !x.Try {
			if f, err := functions.Cast(lit, x.DataType); err == nil {
				if fl, ok := f.(*plan.Literal); ok && arrow.TypeEqual(fl.Type(), x.DataType) {
					return fl
				}
			}
		}
		if in != x.Input {
			c := *x
			c.Input = in
			return &c
		}
	}
	return e
}

// foldArith evaluates integer add, subtract, multiply or negate over integer literals,
// when the result fits c's signed integer type; nil otherwise.
func foldArith(c *plan.Call) *plan.Literal {
	lo, hi, ok := signedRange(c.DataType)
	if !ok {
		return nil
	}
	vals := make([]int64, len(c.Args))
	for i, a := range c.Args {
		lit, ok := a.(*plan.Literal)
		if !ok {
			return nil
		}
		n, ok := functions.IntValue(lit.Value)
		if !ok {
			return nil
		}
		vals[i] = n
	}
	out, ok := functions.IntArith(c.Func, vals)
	if !ok || out < lo || out > hi {
		return nil
	}
	s, err := scalar.NewInt64Scalar(out).CastTo(c.DataType)
	if err != nil {
		return nil
	}
	return &plan.Literal{Value: s}
}

// signedRange returns the value range of a signed integer type.
func signedRange(t arrow.DataType) (lo, hi int64, ok bool) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8, true
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16, true
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32, true
	case arrow.INT64:
		return math.MinInt64, math.MaxInt64, true
	}
	return 0, 0, false
}
