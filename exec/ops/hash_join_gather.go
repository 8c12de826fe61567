package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/exec"
)

// Gather runs several copies of one pipeline (typically scans sharing their morsels, then
// filters, projections and hash joins sharing their build sides) on one goroutine each and
// returns their batches as they come, in no particular order: the exchange at the top of
// a parallel probe pipeline. Workers stop at the first error or when the context of the
// first Next is cancelled; Close stops them, waits for them and releases every batch
// still queued.
type Gather struct {
	inputs  []exec.Operator
	schema  *arrow.Schema
	ch      chan arrow.RecordBatch
	cancel  context.CancelFunc
	err     error // the workers' first error, set before ch is closed
	started bool
}

// NewGather returns a Gather over inputs (owned), which must all have schema.
func NewGather(inputs []exec.Operator, schema *arrow.Schema) *Gather {
	return &Gather{inputs: inputs, schema: schema}
}

// Schema implements exec.Operator.
func (g *Gather) Schema() *arrow.Schema { return g.schema }

// Open implements exec.Operator: it opens every input.
func (g *Gather) Open(ctx context.Context) error {
	for _, in := range g.inputs {
		if err := in.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Next implements exec.Operator. The first call starts the workers.
func (g *Gather) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !g.started {
		g.start(ctx)
	}
	select {
	case b, ok := <-g.ch:
		if !ok {
			return nil, g.err
		}
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// start runs one goroutine per input, sending batches to g.ch, which is closed when they
// have all stopped.
func (g *Gather) start(ctx context.Context) {
	g.started = true
	g.ch = make(chan arrow.RecordBatch, 2*len(g.inputs))
	cctx, cancel := context.WithCancel(ctx)
	g.cancel = cancel
	eg, gctx := errgroup.WithContext(cctx)
	for _, in := range g.inputs {
		eg.Go(func() error { return g.pump(gctx, in) })
	}
	go func() {
		g.err = eg.Wait()
		close(g.ch)
	}()
}

// pump sends in's batches to g.ch until in ends or ctx is cancelled.
func (g *Gather) pump(ctx context.Context, in exec.Operator) error {
	for {
		b, err := in.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		select {
		case g.ch <- b:
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		}
	}
}

// Close implements exec.Operator.
func (g *Gather) Close() error {
	if g.started {
		g.cancel()
		for b := range g.ch { // ends when every worker has stopped
			b.Release()
		}
		g.started = false
	}
	var first error
	for _, in := range g.inputs {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	g.inputs = nil
	return first
}
