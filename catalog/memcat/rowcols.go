package memcat

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
)

// rowColumns builds the hidden row columns req asks for over rows [start, end) of batch
// (fragment) frag: the row address is frag << 32 | row, and the row id is the address
// (memcat tables have no stable row ids).
func rowColumns(req catalog.ScanRequest, frag uint64, start, end int64, mem memory.Allocator) ([]arrow.Field, []arrow.Array) {
	fields := req.RowFields()
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, len(fields))
	for i := range fields {
		b := array.NewUint64Builder(mem)
		b.Reserve(int(end - start))
		for r := start; r < end; r++ {
			b.UnsafeAppend(frag<<32 | uint64(r))
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	return fields, cols
}
