package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// likeEval is s LIKE pattern. A constant pattern is compiled once; any other pattern is
// evaluated per batch and compiled once per distinct value.
type likeEval struct {
	arg, pattern Evaluator
	matcher      *kernel.LikeMatcher // the constant pattern, if any
	null         bool                // the pattern is the constant NULL: every row is NULL
	mem          memory.Allocator
}

func compileLike(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	if len(c.Args) != 2 {
		return nil, dberr.New(dberr.Internal, "like: %d arguments", len(c.Args))
	}
	arg, err := Compile(c.Args[0], mem)
	if err != nil {
		return nil, err
	}
	l := &likeEval{arg: arg, mem: mem}
	if lit, ok := constant(c.Args[1]); ok {
		if !lit.Value.IsValid() {
			l.null = true
			return l, nil
		}
		if p, ok := stringValue(lit); ok {
			l.matcher = kernel.NewLikeMatcher(p)
			return l, nil
		}
	}
	if l.pattern, err = Compile(c.Args[1], mem); err != nil {
		return nil, err
	}
	return l, nil
}

// constant unwraps a literal, possibly under casts of NULL (the binder types a bare NULL
// pattern with a cast).
func constant(e plan.Expr) (*plan.Literal, bool) {
	switch e := e.(type) {
	case *plan.Literal:
		return e, true
	case *plan.Cast:
		if lit, ok := constant(e.Input); ok && !lit.Value.IsValid() {
			return lit, true
		}
	}
	return nil, false
}

func stringValue(lit *plan.Literal) (string, bool) {
	switch lit.Value.DataType().ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return lit.Value.String(), true
	}
	return "", false
}

func (l *likeEval) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }

func (l *likeEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	if l.null {
		return array.MakeArrayOfNull(l.mem, arrow.FixedWidthTypes.Boolean, int(b.NumRows())), nil
	}
	v, err := l.arg.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	if l.matcher != nil {
		return kernel.Like(l.mem, v, l.matcher)
	}
	p, err := l.pattern.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return kernel.LikeColumn(l.mem, v, p)
}
