package file

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/schema"
)

// coalesceSlack is how many unrequested bytes a page read may include to fetch all of a
// page's buffers in one request.
const coalesceSlack = 64 << 10

// ReadRange reads rows [start, end) of the given top-level fields. It returns one array per
// field id, in order; the caller must Release them.
func (r *Reader) ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64,
	mem memory.Allocator) ([]arrow.Array, error) {
	if start > end || end > r.numRows {
		return nil, fmt.Errorf("read %s: rows [%d, %d) out of range (file has %d)", r.path, start, end, r.numRows)
	}
	return r.read(ctx, fieldIDs, [][2]uint64{{start, end}}, mem)
}

// Take reads the given rows (sorted ascending, no duplicates) of the given top-level fields.
// It returns one array per field id, in order; the caller must Release them.
func (r *Reader) Take(ctx context.Context, fieldIDs []int32, rows []uint64,
	mem memory.Allocator) ([]arrow.Array, error) {
	runs, err := RowRuns(r.path, r.numRows, rows)
	if err != nil {
		return nil, err
	}
	return r.read(ctx, fieldIDs, runs, mem)
}

// RowRuns turns the sorted, unique row offsets of a take from a file of numRows rows into
// runs of consecutive rows [start, end), checking the offsets.
func RowRuns(path string, numRows uint64, rows []uint64) ([][2]uint64, error) {
	var runs [][2]uint64
	for i, row := range rows {
		if row >= numRows {
			return nil, fmt.Errorf("take from %s: row %d out of range (file has %d)", path, row, numRows)
		}
		if i > 0 && row <= rows[i-1] {
			return nil, fmt.Errorf("take from %s: rows must be sorted and unique (%d after %d)", path, row, rows[i-1])
		}
		if n := len(runs); n > 0 && runs[n-1][1] == row {
			runs[n-1][1]++
		} else {
			runs = append(runs, [2]uint64{row, row + 1})
		}
	}
	return runs, nil
}

func (r *Reader) read(ctx context.Context, fieldIDs []int32, runs [][2]uint64,
	mem memory.Allocator) ([]arrow.Array, error) {
	return r.readWith(newReadCtx(ctx, r, len(runs) > 1), fieldIDs, runs, mem)
}

// readWith reads runs of the fields with rc, as read does.
func (r *Reader) readWith(rc *readCtx, fieldIDs []int32, runs [][2]uint64,
	mem memory.Allocator) (_ []arrow.Array, err error) {
	defer rc.release()
	out := make([]arrow.Array, 0, len(fieldIDs))
	defer func() {
		if err != nil {
			for _, a := range out {
				a.Release()
			}
		}
	}()
	rows := 0
	for _, run := range runs {
		rows += int(run[1] - run[0])
	}
	if len(runs) > 1 && r.version != V2_0 {
		if err := rc.prefetch21(fieldIDs, runs); err != nil {
			return nil, fmt.Errorf("read %s: %w", r.path, err)
		}
	}
	for _, id := range fieldIDs {
		f, err := r.topField(id)
		if err != nil {
			return nil, err
		}
		arr, err := rc.readArray(f, runs, rows, mem)
		if err != nil {
			return nil, err
		}
		out = append(out, arr)
	}
	return out, nil
}

// readArray reads the rows of runs (rows in all) of top-level field f into one array,
// decoding fixed-width values straight into buffers from mem.
func (rc *readCtx) readArray(f *schema.Field, runs [][2]uint64, rows int, mem memory.Allocator) (arrow.Array, error) {
	b, err := encoding.NewBuilder(f.Type)
	if err != nil {
		return nil, fmt.Errorf("read %s field %q (id %d): %w", rc.r.path, f.Name, f.ID, err)
	}
	defer b.Release()
	b.ReserveIn(mem, rows)
	for _, run := range runs {
		if err := rc.readField(f, b, run[0], run[1]); err != nil {
			return nil, fmt.Errorf("read %s field %q (id %d): %w", rc.r.path, f.Name, f.ID, err)
		}
	}
	arr, err := b.FinishArray(mem)
	if err != nil {
		return nil, fmt.Errorf("read %s field %q (id %d): %w: %w", rc.r.path, f.Name, f.ID, ErrCorruptFile, err)
	}
	return arr, nil
}

// readCtx carries one ReadRange/Take call: the context and, for a Take, the pages decoded
// so far, so a Take touching one page many times decodes it once. A ReadRange visits each
// page once and keeps nothing.
type readCtx struct {
	ctx   context.Context // the caller's context, for the duration of one call only
	r     *Reader
	cache bool
	// keepMeta keeps parsed chunk tables and mini-block decoders in chunkTabs and
	// miniBlocks even without cache: a Cursor's maps, which outlive the call.
	keepMeta bool
	pages20  map[pageKey]*encoding.Builder
	lists20  map[pageKey]*listPage
	pages21  map[pageKey]*leafPage

	blocks     [][]block                       // prefetched file bytes, one sorted list per fetch
	mu         sync.Mutex                      // guards pageBufs (prefetch reads in parallel)
	pageBufs   []*[]byte                       // page buffers read so far, pooled again by release
	planned    map[pageKey]bool                // pages whose fixed extents are planned
	chunkTabs  map[pageKey][]encoding.Chunk    // parsed mini-block chunk tables (Take and Cursor only)
	miniBlocks map[pageKey]*encoding.MiniBlock // mini-block decoders with their dictionaries (Take and Cursor only)
}

type pageKey struct{ col, page int }

func newReadCtx(ctx context.Context, r *Reader, cache bool) *readCtx {
	return &readCtx{ctx: ctx, r: r, cache: cache, pages20: map[pageKey]*encoding.Builder{},
		lists20: map[pageKey]*listPage{}, pages21: map[pageKey]*leafPage{},
		planned: map[pageKey]bool{}, chunkTabs: map[pageKey][]encoding.Chunk{},
		miniBlocks: map[pageKey]*encoding.MiniBlock{}}
}

func (rc *readCtx) readField(f *schema.Field, b *encoding.Builder, start, end uint64) error {
	if rc.r.version == V2_0 {
		return rc.readField20(f, b, start, end)
	}
	return rc.readTop21(f, b, start, end)
}

// column returns the column index and metadata of field f.
func (rc *readCtx) column(f *schema.Field) (int, *column, error) {
	ci, ok := rc.r.colOfFld[f.ID]
	if !ok {
		return 0, nil, fmt.Errorf("%w: field %q (id %d) has no column", ErrCorruptFile, f.Name, f.ID)
	}
	return ci, rc.r.columns[ci], nil
}

// pageBuffers reads all buffers of page pi of column ci, in one request when they lie close
// together.
func (rc *readCtx) pageBuffers(ci, pi int) ([][]byte, error) {
	if err := rc.ctx.Err(); err != nil {
		return nil, err
	}
	p := rc.r.columns[ci].pages[pi]
	out := make([][]byte, len(p.bufs))
	if len(p.bufs) == 0 {
		return out, nil
	}
	hits := 0
	for i, e := range p.bufs {
		if b, ok := rc.lookup(e.Pos, e.Size); ok {
			out[i], hits = b, hits+1
		}
	}
	if hits == len(p.bufs) {
		return out, nil
	}
	lo, hi, sum := p.bufs[0].Pos, p.bufs[0].End(), uint64(0)
	for _, e := range p.bufs {
		lo, hi, sum = min(lo, e.Pos), max(hi, e.End()), sum+e.Size
	}
	if hi-lo <= sum+coalesceSlack {
		all, err := rc.readAt(lo, hi-lo)
		if err != nil {
			return nil, fmt.Errorf("column %d page %d: %w", ci, pi, err)
		}
		for i, e := range p.bufs {
			out[i] = all[e.Pos-lo : e.End()-lo : e.End()-lo] // capped: the bytes may be cached, shared
		}
		return out, nil
	}
	for i, e := range p.bufs {
		b, err := rc.readAt(e.Pos, e.Size)
		if err != nil {
			return nil, fmt.Errorf("column %d page %d buffer %d: %w", ci, pi, i, err)
		}
		out[i] = b
	}
	return out, nil
}

// readBufferRange reads bytes [off, off+n) of buffer bi of page pi of column ci.
func (rc *readCtx) readBufferRange(ci, pi, bi int, off, n uint64) ([]byte, error) {
	p := rc.r.columns[ci].pages[pi]
	if bi >= len(p.bufs) {
		return nil, fmt.Errorf("%w: column %d page %d has no buffer %d", ErrCorruptFile, ci, pi, bi)
	}
	e := p.bufs[bi]
	if off > e.Size || n > e.Size-off {
		return nil, fmt.Errorf("%w: column %d page %d buffer %d: range [%d, +%d) past its %d bytes",
			ErrCorruptFile, ci, pi, bi, off, n, e.Size)
	}
	return rc.readAt(e.Pos+off, n)
}

// corrupt wraps a decoding error of column ci, page pi as a corrupt-file error.
func corrupt(ci, pi int, err error) error {
	if errors.Is(err, ErrNotSupported) || errors.Is(err, ErrCorruptFile) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("column %d page %d: %w", ci, pi, err)
	}
	return fmt.Errorf("column %d page %d: %w: %w", ci, pi, ErrCorruptFile, err)
}
