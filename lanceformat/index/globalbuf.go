package index

import (
	"context"
	"fmt"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// footerSize is the size of a Lance v2 file footer (§5.1).
const footerSize = 40

// readGlobalBuffer reads global buffer i of a Lance v2 file (file.Reader does not expose
// them): footer, then the GBO table, then the buffer.
func readGlobalBuffer(ctx context.Context, store lanceio.ObjectStore, p string, i uint32) ([]byte, error) {
	size, err := store.Size(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("global buffer %d of %s: %w", i, p, err)
	}
	if size < footerSize {
		return nil, corrupt("%s: %d bytes is shorter than the footer", p, size)
	}
	tail, err := store.ReadRange(ctx, p, size-footerSize, footerSize)
	if err != nil {
		return nil, fmt.Errorf("global buffer %d of %s: %w", i, p, err)
	}
	ft, err := file.ParseFooter(tail, uint64(size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", p, ErrCorruptIndex, err)
	}
	if i >= ft.NumGlobalBuffers {
		return nil, corrupt("%s: global buffer %d of %d", p, i, ft.NumGlobalBuffers)
	}
	gbo, err := store.ReadRange(ctx, p, int64(ft.GlobalBufOffsets), int64(ft.NumGlobalBuffers)*16)
	if err != nil {
		return nil, fmt.Errorf("global buffer %d of %s: %w", i, p, err)
	}
	ext, err := file.ParseTable(gbo, ft.NumGlobalBuffers, uint64(size), "global buffer")
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", p, ErrCorruptIndex, err)
	}
	b, err := store.ReadRange(ctx, p, int64(ext[i].Pos), int64(ext[i].Size))
	if err != nil {
		return nil, fmt.Errorf("global buffer %d of %s: %w", i, p, err)
	}
	return b, nil
}
