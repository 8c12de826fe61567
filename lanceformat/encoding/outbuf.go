package encoding

import (
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// uninitAllocator is an allocator that can hand out memory without zeroing it (a query's
// recycling allocator in flightsrv): for buffers the decoder overwrites whole.
type uninitAllocator interface {
	AllocateUninit(size int) []byte
}

// newOutBuffer returns an Arrow buffer of n bytes from mem that the caller overwrites
// whole before anyone reads it: its bytes are unspecified when mem can skip zeroing them,
// zero otherwise. Its capacity is n rounded up to 64 bytes, as Arrow's own buffers.
func newOutBuffer(mem memory.Allocator, n int) *memory.Buffer {
	u, ok := mem.(uninitAllocator)
	if !ok || n <= 0 {
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(n)
		return buf
	}
	buf := memory.NewBufferWithAllocator(u.AllocateUninit((n+63)&^63), mem)
	buf.ResizeNoShrink(n)
	return buf
}
