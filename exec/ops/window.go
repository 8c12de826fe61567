package ops

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Window computes window functions (plan.Window). It is a pipeline breaker: it materializes
// its whole input, and for every distinct (PARTITION BY, ORDER BY) specification sorts the
// row positions once (stably, partition keys then order keys, with the Sort operator's
// comparators), finds the partitions and peer groups, and computes each function of that
// specification per partition. The output is the input's columns, in input order, followed
// by one column per function.
//
// Supported: row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead
// (per-row offset and default), first_value, last_value, nth_value, and every aggregate the
// hash Aggregate supports, with DISTINCT and FILTER, over ROWS, RANGE and GROUPS frames with
// UNBOUNDED, offset and CURRENT ROW bounds (RANGE offsets on numeric, date and timestamp
// order keys; intervals or day counts for the temporal ones). count, sum
// and avg use prefix sums (float sums a segment tree), min and max a segment tree of argmin
// positions; other aggregates and DISTINCT fold each row's frame separately (O(frame size)
// per row). IGNORE NULLS and frame EXCLUDE are not supported yet (plan.WindowFunc has no
// fields for them). The input is held in memory (reserved against the query's pool); it
// does not spill.
type Window struct {
	input  exec.Operator
	funcs  []plan.WindowFunc
	schema *arrow.Schema
	env    exec.Env
	res    *exec.Reservation
	out    splitter
	done   bool
}

// NewWindow builds a window operator over input; schema is the input's columns followed by
// one column per function (plan.Window's schema).
func NewWindow(input exec.Operator, funcs []plan.WindowFunc, schema *arrow.Schema, env exec.Env) *Window {
	env = env.WithDefaults()
	return &Window{input: input, funcs: funcs, schema: schema, env: env,
		out: splitter{size: int64(env.BatchSize)}, res: newReservation(env, "window")}
}

// Schema implements exec.Operator.
func (w *Window) Schema() *arrow.Schema { return w.schema }

// Open implements exec.Operator: it rejects functions it cannot compute before reading.
func (w *Window) Open(ctx context.Context) error {
	for _, f := range w.funcs {
		if err := checkWindowFunc(f); err != nil {
			return err
		}
	}
	return w.input.Open(ctx)
}

// checkWindowFunc reports functions the operator does not know.
func checkWindowFunc(f plan.WindowFunc) error {
	if _, ok := rankingFuncs[f.Func]; ok {
		return nil
	}
	switch f.Func {
	case "count", "count_star", "sum", "avg", "min", "max", "stddev_samp", "stddev_pop", "stddev",
		"var_samp", "var_pop", "variance", "bool_and", "bool_or", "string_agg", "first", "last",
		"any_value", "list", "array_agg", "approx_count_distinct":
		return nil
	}
	return dberr.NotSupported("window function " + f.Func)
}

// Next implements exec.Operator. The first call consumes the whole input.
func (w *Window) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !w.done {
		w.done = true
		all, err := drainConcat(ctx, w.input, w.env, w.res)
		if err != nil || all == nil {
			return nil, err
		}
		b, err := w.compute(ctx, all)
		all.Release()
		if err != nil {
			return nil, err
		}
		w.out.push(b)
	}
	return w.out.next(), nil
}

// compute returns all's columns followed by every function's result.
func (w *Window) compute(ctx context.Context, all arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, w.schema.NumFields())
	for _, c := range all.Columns() {
		c.Retain()
		cols = append(cols, c)
	}
	layouts := map[string]*windowLayout{}
	defer func() {
		for _, l := range layouts {
			l.release()
		}
	}()
	for _, f := range w.funcs {
		if err := ctx.Err(); err != nil {
			releaseArrays(cols)
			return nil, err
		}
		key := specKey(f)
		l, ok := layouts[key]
		if !ok {
			var err error
			if l, err = newWindowLayout(ctx, w.env, all, f.PartitionBy, f.OrderBy); err != nil {
				releaseArrays(cols)
				return nil, err
			}
			layouts[key] = l
			if err := w.res.TryGrow(l.bytes()); err != nil {
				releaseArrays(cols)
				return nil, err
			}
		}
		col, err := w.computeFunc(ctx, all, l, f)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, col)
	}
	return newBatchOwned(w.schema, cols, all.NumRows()), nil
}

// specKey identifies a window specification (partitioning and ordering).
func specKey(f plan.WindowFunc) string {
	var b strings.Builder
	for _, p := range f.PartitionBy {
		b.WriteString(p.String())
		b.WriteByte(0)
	}
	b.WriteByte(1)
	for _, k := range f.OrderBy {
		b.WriteString(k.String())
		b.WriteByte(0)
	}
	return b.String()
}

// computeFunc computes one function over all (in input order), cast to its declared type.
func (w *Window) computeFunc(ctx context.Context, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error) {
	var col arrow.Array
	var err error
	if fn, ok := rankingFuncs[f.Func]; ok {
		col, err = fn(ctx, w.env, all, l, f)
	} else {
		col, err = windowAggregate(ctx, w.env, all, l, f)
	}
	if err != nil {
		return nil, err
	}
	return castTo(ctx, w.env, col, f.DataType)
}

// Close implements exec.Operator.
func (w *Window) Close() error {
	w.out.release()
	w.res.Free()
	return w.input.Close()
}
