package file_test

import (
	"context"
	"testing"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
)

func FuzzFooter(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		ft, err := file.ParseFooter(b, uint64(len(b)))
		if err != nil {
			return
		}
		if _, err := ft.Version(); err != nil {
			return
		}
		gbo := b[min(ft.GlobalBufOffsets, uint64(len(b))):]
		if _, err := file.ParseTable(gbo, ft.NumGlobalBuffers, uint64(len(b)), "global buffer"); err != nil {
			return
		}
	})
}

// FuzzOpen opens a whole file from memory and reads every top-level field: nothing a file
// contains may make the reader panic, and every array it returns must be released cleanly.
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte, start, end uint16) {
		ctx := context.Background()
		r, err := file.Open(ctx, memStore{"f.lance": b}, "f.lance")
		if err != nil {
			return
		}
		mem := memtest.NewChecked(t)
		defer mem.AssertSize(t, 0)
		var ids []int32
		for _, fld := range r.Schema().Fields {
			ids = append(ids, fld.ID)
		}
		hi := min(uint64(end), r.NumRows())
		lo := min(uint64(start), hi)
		if arrs, err := r.ReadRange(ctx, ids, lo, hi, mem); err == nil {
			releaseAll(arrs)
		}
		if hi > lo {
			rows := []uint64{lo}
			if hi-1 > lo {
				rows = append(rows, hi-1)
			}
			if arrs, err := r.Take(ctx, ids, rows, mem); err == nil {
				releaseAll(arrs)
			}
		}
	})
}
