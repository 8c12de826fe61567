package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// strConstCompareEval is a comparison of a string expression with a non-NULL string literal
// (n_name = 'FRANCE'): kernel.CompareStringConst against the constant, without broadcasting
// it to the batch's length. Other types of the evaluated argument fall back to the general
// comparison.
type strConstCompareEval struct {
	arg  Evaluator
	fn   string // arrow's comparison name, with the argument on the left
	c    string
	dt   arrow.DataType
	mem  memory.Allocator
	slow Evaluator // the general comparison, for arguments the kernel does not take
}

// compareNames maps the planner's comparison names to arrow's.
var compareNames = map[string]string{
	"equal": "equal", "not_equal": "not_equal", "lt": "less", "lte": "less_equal",
	"gt": "greater", "gte": "greater_equal",
}

// flippedCompare is the comparison with its operands swapped (c < x is x > c).
var flippedCompare = map[string]string{
	"equal": "equal", "not_equal": "not_equal", "less": "greater", "less_equal": "greater_equal",
	"greater": "less", "greater_equal": "less_equal",
}

// compileStrConstCompare returns the evaluator for c when c compares a string expression
// with a non-NULL string literal of the same type, and slow (c's general evaluator)
// otherwise.
func compileStrConstCompare(c *plan.Call, slow Evaluator, mem memory.Allocator) (Evaluator, error) {
	arrowName, isCmp := compareNames[c.Func]
	if !isCmp || len(c.Args) != 2 {
		return slow, nil
	}
	fn, argExpr, lit := arrowName, c.Args[0], c.Args[1]
	if _, isLit := argExpr.(*plan.Literal); isLit {
		fn, argExpr, lit = flippedCompare[arrowName], c.Args[1], c.Args[0]
	}
	l, ok := lit.(*plan.Literal)
	if !ok || !l.Value.IsValid() || !arrow.TypeEqual(l.Value.DataType(), argExpr.Type()) {
		return slow, nil
	}
	var val string
	switch s := l.Value.(type) {
	case *scalar.String:
		val = string(s.Value.Bytes())
	case *scalar.LargeString:
		val = string(s.Value.Bytes())
	default:
		return slow, nil
	}
	arg, err := Compile(argExpr, mem)
	if err != nil {
		return nil, err
	}
	return &strConstCompareEval{arg: arg, fn: fn, c: val, dt: c.DataType, mem: mem, slow: slow}, nil
}

func (e *strConstCompareEval) Type() arrow.DataType { return e.dt }

func (e *strConstCompareEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := e.arg.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	out, ok := kernel.CompareStringConst(e.mem, e.fn, v, e.c)
	v.Release()
	if !ok {
		return e.slow.Eval(ctx, b)
	}
	return conform(ctx, e.mem, out, e.dt)
}
