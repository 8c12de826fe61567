package ops

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/recycle"
)

// Recycler is the allocator an aggregate evaluates its keys and arguments with, and the one
// the workers of a parallel aggregate (or the scan of a fused one) read and filter with
// (exec/build): its batches are released within the aggregate, so their buffers are reused.
type Recycler = recycle.Recycler

// bufPoolMax bounds the bytes one aggregate's recycler keeps.
const bufPoolMax = 64 << 20

// NewRecycler returns an empty recycler over parent keeping up to bufPoolMax bytes.
func NewRecycler(parent memory.Allocator) *Recycler { return recycle.New(parent, bufPoolMax) }
