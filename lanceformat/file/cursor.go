package file

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
)

// Cursor reads one Reader's rows range by range, in ascending order, for a sequential scan.
// It keeps each mini-block page's parsed chunk table and decoder (with its decoded
// dictionary) from one ReadRange to the next, so a page read in many small ranges fetches
// and parses its metadata once instead of once per range. State of pages wholly before a
// range is dropped when that range is read. A Cursor is not safe for concurrent use; the
// Reader it reads stays shareable.
type Cursor struct {
	r          *Reader
	chunkTabs  map[pageKey][]encoding.Chunk
	miniBlocks map[pageKey]*encoding.MiniBlock
}

// NewCursor returns a Cursor over r.
func (r *Reader) NewCursor() *Cursor {
	return &Cursor{r: r, chunkTabs: map[pageKey][]encoding.Chunk{}, miniBlocks: map[pageKey]*encoding.MiniBlock{}}
}

// NumRows returns the number of rows of the file.
func (c *Cursor) NumRows() uint64 { return c.r.numRows }

// ReadRange reads rows [start, end) of the given top-level fields, as Reader.ReadRange does,
// reusing the page state kept from earlier ranges.
func (c *Cursor) ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64,
	mem memory.Allocator) ([]arrow.Array, error) {
	if start > end || end > c.r.numRows {
		return nil, fmt.Errorf("read %s: rows [%d, %d) out of range (file has %d)", c.r.path, start, end, c.r.numRows)
	}
	c.drop(start)
	rc := newReadCtx(ctx, c.r, false)
	rc.chunkTabs, rc.miniBlocks, rc.keepMeta = c.chunkTabs, c.miniBlocks, true
	return c.r.readWith(rc, fieldIDs, [][2]uint64{{start, end}}, mem)
}

// Take reads the given rows as Reader.Take does (without the cursor's state).
func (c *Cursor) Take(ctx context.Context, fieldIDs []int32, rows []uint64,
	mem memory.Allocator) ([]arrow.Array, error) {
	return c.r.Take(ctx, fieldIDs, rows, mem)
}

// drop forgets the state of pages that end at or before row.
func (c *Cursor) drop(row uint64) {
	dead := func(k pageKey) bool {
		col := c.r.columns[k.col]
		return k.page+1 < len(col.starts) && col.starts[k.page+1] <= row
	}
	for k := range c.chunkTabs {
		if dead(k) {
			delete(c.chunkTabs, k)
		}
	}
	for k := range c.miniBlocks {
		if dead(k) {
			delete(c.miniBlocks, k)
		}
	}
}
