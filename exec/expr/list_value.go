package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// listValueEval evaluates list_value(x, ...) with items that are not all constants (a
// list literal of constants is bound to a literal): every item, then one list per row.
type listValueEval struct {
	args []Evaluator
	dt   *arrow.ListType
	mem  memory.Allocator
}

func (l *listValueEval) Type() arrow.DataType { return l.dt }

func (l *listValueEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	items, err := evalArgs(ctx, l.args, b)
	if err != nil {
		return nil, err
	}
	defer releaseAll(items)
	return kernel.ListValue(ctx, l.mem, l.dt, items, int(b.NumRows()))
}

func compileListValue(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	dt, ok := c.DataType.(*arrow.ListType)
	if !ok || len(c.Args) == 0 {
		return nil, dberr.New(dberr.Internal, "list_value of %d arguments typed %s", len(c.Args), c.DataType)
	}
	args, err := CompileAll(c.Args, mem)
	if err != nil {
		return nil, err
	}
	return &listValueEval{args: args, dt: dt, mem: mem}, nil
}
