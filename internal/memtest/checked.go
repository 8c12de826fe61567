package memtest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// NewChecked returns a CheckedAllocator over a new Poison allocator for one test. When the
// test ends it fails the test if any buffer was freed twice or freed without having been
// allocated here. The caller still checks sizes itself:
//
//	mem := memtest.NewChecked(t)
//	defer mem.AssertSize(t, 0)
func NewChecked(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	p := NewPoison()
	t.Cleanup(func() {
		if errs := p.Errors(); len(errs) > 0 {
			t.Errorf("memtest: %d bad frees, first: %s", len(errs), errs[0])
		}
	})
	return memory.NewCheckedAllocator(p)
}
