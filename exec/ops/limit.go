package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
)

// Limit skips offset rows, then passes at most count rows (count < 0: all). It stops
// pulling from its input once count rows have passed.
type Limit struct {
	input   exec.Operator
	offset  int64
	count   int64
	skipped int64
	passed  int64
}

// NewLimit builds a limit over input.
func NewLimit(input exec.Operator, offset, count int64) *Limit {
	return &Limit{input: input, offset: max(offset, 0), count: count}
}

// Schema implements exec.Operator.
func (l *Limit) Schema() *arrow.Schema { return l.input.Schema() }

// Open implements exec.Operator.
func (l *Limit) Open(ctx context.Context) error { return l.input.Open(ctx) }

// Next implements exec.Operator.
func (l *Limit) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.count >= 0 && l.passed >= l.count {
			return nil, nil
		}
		b, err := l.input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		n := b.NumRows()
		start := min(n, l.offset-l.skipped)
		l.skipped += start
		end := n
		if l.count >= 0 {
			end = min(n, start+l.count-l.passed)
		}
		if start == end {
			b.Release()
			continue
		}
		l.passed += end - start
		if start == 0 && end == n {
			return b, nil
		}
		out := b.NewSlice(start, end)
		b.Release()
		return out, nil
	}
}

// Close implements exec.Operator.
func (l *Limit) Close() error { return l.input.Close() }
