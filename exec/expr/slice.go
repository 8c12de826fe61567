package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
)

// array_slice(x, begin, end) is x[begin:end] on lists and strings (kernel.ArraySlice).
func init() {
	scalarFuncs["array_slice"] = funcDef{fn: arraySliceFunc, min: 3, max: 3, strict: true}
}

func arraySliceFunc(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	return kernel.ArraySlice(mem, args)
}
