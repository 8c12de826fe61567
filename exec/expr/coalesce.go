package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// coalesceFunc returns, per row, the first non-NULL argument (NULL if there is none). It
// concatenates the arguments and takes one position per row, so it works for every type.
func coalesceFunc(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if len(args) == 1 {
		args[0].Retain()
		return args[0], nil
	}
	n := args[0].Len()
	idx := kernel.NewFixed[int64](mem, arrow.PrimitiveTypes.Int64, n)
	for i := range n {
		idx.Values[i] = int64(i) // all NULL: the first argument's NULL
		for k, a := range args {
			if kernel.IsValid(a, i) {
				idx.Values[i] = int64(k*n + i)
				break
			}
		}
	}
	indices := idx.Finish()
	defer indices.Release()
	all, err := array.Concatenate(args, mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "coalesce: concatenate arguments")
	}
	defer all.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), all, indices)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "coalesce: take")
	}
	return out, nil
}
