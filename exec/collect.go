package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Collect opens op, reads every batch and closes it. The caller owns the returned batches
// and must Release each. On error nothing is returned and everything read is released.
func Collect(ctx context.Context, op Operator) (batches []arrow.RecordBatch, err error) {
	defer func() {
		if cerr := op.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close operator: %w", cerr))
		}
		if err != nil {
			for _, b := range batches {
				b.Release()
			}
			batches = nil
		}
	}()
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return batches, err
		}
		if b == nil {
			return batches, nil
		}
		batches = append(batches, b)
	}
}
