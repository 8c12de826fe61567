package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec/kernel"
)

// aggInputs are the evaluated inputs of one batch for every aggregate: its argument (nil
// for count(*)) and its FILTER mask (nil: no FILTER clause). They are all evaluated before
// any state changes, so that a batch whose evaluation fails leaves the aggregate as it was
// (the fused filter then retries on the selected rows only).
type aggInputs struct {
	args  []arrow.Array
	masks [][]bool
	// lanes: the aggregates on lanes (Aggregate.lanes) have their argument in the lane
	// program, not in args
	lanes bool
}

func (in aggInputs) release() { releaseArrays(in.args) }

// evalInputs evaluates every aggregate's argument and FILTER clause over b.
func (a *Aggregate) evalInputs(ctx context.Context, b arrow.RecordBatch) (aggInputs, error) {
	onLanes := a.lanes != nil && a.lanes.eval(b)
	if a.cse != nil && !(onLanes && a.lanes.all) {
		eb, err := a.cse.extend(ctx, b)
		if err != nil {
			return aggInputs{}, err
		}
		defer eb.Release()
		b = eb
	}
	in := aggInputs{args: make([]arrow.Array, len(a.aggs)), masks: make([][]bool, len(a.aggs)), lanes: onLanes}
	for i := range a.aggs {
		if a.args[i] != nil && !(onLanes && a.lanes.roots[i] >= 0) {
			v, err := a.args[i].Eval(ctx, b)
			if err != nil {
				in.release()
				return aggInputs{}, err
			}
			in.args[i] = v
		}
		m, err := a.includeMask(ctx, i, b)
		if err != nil {
			in.release()
			return aggInputs{}, err
		}
		in.masks[i] = m
	}
	return in, nil
}

// includeMask evaluates aggregate i's FILTER clause; nil means every row.
func (a *Aggregate) includeMask(ctx context.Context, i int, b arrow.RecordBatch) ([]bool, error) {
	if a.filters[i] == nil {
		return nil, nil
	}
	cond, err := a.filters[i].Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer cond.Release()
	bools, ok := cond.(*array.Boolean)
	include := make([]bool, cond.Len())
	for r := range include {
		include[r] = ok && kernel.IsValid(cond, r) && bools.Value(r)
	}
	return include, nil
}
