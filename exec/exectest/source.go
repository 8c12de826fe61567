package exectest

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Source is an exec.Operator that yields fixed batches. It owns them: batches not handed
// out are released by Close.
type Source struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	opened  bool
	// Opened and Closed count calls, for tests of operator lifecycles.
	Opened, Closed int
}

// NewSource returns a source over batches, taking ownership of them.
func NewSource(schema *arrow.Schema, batches []arrow.RecordBatch) *Source {
	return &Source{schema: schema, batches: batches}
}

// Schema implements exec.Operator.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// Open implements exec.Operator.
func (s *Source) Open(context.Context) error {
	s.Opened++
	s.opened = true
	return nil
}

// Next implements exec.Operator.
func (s *Source) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(s.batches) == 0 {
		return nil, nil
	}
	b := s.batches[0]
	s.batches = s.batches[1:]
	return b, nil
}

// Close implements exec.Operator.
func (s *Source) Close() error {
	s.Closed++
	for _, b := range s.batches {
		b.Release()
	}
	s.batches = nil
	return nil
}
