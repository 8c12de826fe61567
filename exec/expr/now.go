package expr

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// nowEval is current_date or current_timestamp. The time is taken when the expression is
// compiled, so every row and batch of one operator sees the same value (DuckDB fixes it
// per transaction; flightd compiles expressions when a query's operators open).
type nowEval struct {
	date bool
	now  time.Time
	dt   arrow.DataType
	mem  memory.Allocator
}

// compileNow compiles the zero-argument time functions; any other name is not supported.
func compileNow(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	switch c.Func {
	case "current_date", "current_timestamp", "now", "get_current_timestamp":
	default:
		return nil, dberr.NotSupported("function " + c.Func)
	}
	if len(c.Args) != 0 {
		return nil, dberr.New(dberr.Internal, "%s: %d arguments", c.Func, len(c.Args))
	}
	return &nowEval{date: c.Func == "current_date", now: time.Now().UTC(), dt: c.DataType, mem: mem}, nil
}

func (n *nowEval) Type() arrow.DataType { return n.dt }

func (n *nowEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	var out arrow.Array
	if n.date {
		out = kernel.CurrentDate(n.mem, int(b.NumRows()), n.now)
	} else {
		out = kernel.CurrentTimestamp(n.mem, int(b.NumRows()), n.now)
	}
	return conform(ctx, n.mem, out, n.dt)
}
