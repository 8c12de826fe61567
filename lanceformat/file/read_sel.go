package file

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// ReadSel reads the given rows (ascending, unique, within [start, end)) of the given
// top-level fields: what ReadRange of [start, end) followed by a take of rows returns, for
// late materialization after a filter. Flat fields of 2.1+ files whose pages are mini-block
// pages without levels decode the chunks holding the rows but copy, look up or expand only
// the selected values (encoding.MiniBlock.DecodeSelInto); other pages, nested fields and 2.0
// files decode the span from the first to the last row and copy the selected runs. It
// reads the same bytes ReadRange of that span would, and keeps the cursor's page state.
// Not supported yet: fields holding Arrow dictionaries (see spanSel).
func (c *Cursor) ReadSel(ctx context.Context, fieldIDs []int32, start, end uint64, rows []uint64,
	mem memory.Allocator) (_ []arrow.Array, err error) {
	if start > end || end > c.r.numRows {
		return nil, fmt.Errorf("read %s: rows [%d, %d) out of range (file has %d)", c.r.path, start, end, c.r.numRows)
	}
	for i, row := range rows {
		if row < start || row >= end || (i > 0 && row <= rows[i-1]) {
			return nil, fmt.Errorf("read %s: selected row %d not ascending in [%d, %d)", c.r.path, row, start, end)
		}
	}
	c.drop(start)
	rc := newReadCtx(ctx, c.r, false)
	rc.chunkTabs, rc.miniBlocks, rc.keepMeta = c.chunkTabs, c.miniBlocks, true
	defer rc.release()
	out := make([]arrow.Array, 0, len(fieldIDs))
	defer func() {
		if err != nil {
			for _, a := range out {
				a.Release()
			}
		}
	}()
	for _, id := range fieldIDs {
		f, err := c.r.topField(id)
		if err != nil {
			return nil, err
		}
		arr, err := rc.readArraySel(f, start, end, rows, mem)
		if err != nil {
			return nil, fmt.Errorf("read %s field %q (id %d): %w", c.r.path, f.Name, f.ID, err)
		}
		out = append(out, arr)
	}
	return out, nil
}

// SelSupported reports whether ReadSel can read fields of type t: any type that is not
// and holds no Arrow dictionary (see spanSel).
func SelSupported(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.DictionaryType:
		return false
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if !SelSupported(f.Type) {
				return false
			}
		}
	}
	return true
}

// readArraySel reads the rows (within [start, end)) of top-level field f into one array.
func (rc *readCtx) readArraySel(f *schema.Field, start, end uint64, rows []uint64, mem memory.Allocator) (arrow.Array, error) {
	b, err := encoding.NewBuilder(f.Type)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	b.ReserveIn(mem, len(rows))
	if len(rows) > 0 {
		leaves := columnFields(f, rc.r.version)
		if rc.r.version == V2_0 || len(leaves) != 1 || leaves[0] != f {
			err = rc.spanSel(b, start, end, rows, func(s *encoding.Builder, lo, hi uint64) error { return rc.readField(f, s, lo, hi) })
		} else {
			err = rc.readLeafSel(f, leafPath(f, b, f), start, end, rows)
		}
		if err != nil {
			return nil, err
		}
	}
	arr, err := b.FinishArray(mem)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptFile, err)
	}
	return arr, nil
}

// readLeafSel appends the rows (within [start, end)) of a flat leaf field of a 2.1+ file,
// page by page.
func (rc *readCtx) readLeafSel(leaf *schema.Field, path []encoding.PathNode, start, end uint64, rows []uint64) error {
	ci, col, err := rc.column(leaf)
	if err != nil {
		return err
	}
	b := path[len(path)-1].B
	var local []uint64
	for i := 0; i < len(rows); {
		pi := col.pageFor(rows[i])
		if pi >= len(col.pages) {
			return fmt.Errorf("%w: column %d has no page for row %d", ErrCorruptFile, ci, rows[i])
		}
		j := i + 1
		for j < len(rows) && rows[j] < col.starts[pi+1] {
			j++
		}
		mb := rc.directMiniBlock(ci, pi)
		if mb == nil {
			err = rc.spanSel(b, max(start, col.starts[pi]), min(end, col.starts[pi+1]), rows[i:j], func(s *encoding.Builder, lo, hi uint64) error {
				return rc.readLeaf21(leaf, leafPath(leaf, s, leaf), lo, hi)
			})
		} else {
			local = local[:0]
			for _, r := range rows[i:j] {
				local = append(local, r-col.starts[pi])
			}
			err = rc.miniBlockSel(ci, pi, leaf, mb, b, local)
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// miniBlockSel appends the page-local rows local of a page directMiniBlock accepts.
func (rc *readCtx) miniBlockSel(ci, pi int, leaf *schema.Field, mb *enc21pb.MiniBlockLayout, b *encoding.Builder,
	local []uint64) error {
	sel, data, err := rc.chunkBytes(ci, pi, mb, local[0], local[len(local)-1]+1)
	if err != nil {
		return err
	}
	m, err := rc.newMiniBlock(ci, pi, leaf, mb)
	if err != nil {
		return err
	}
	if err := m.DecodeSelInto(b, sel, data, local); err != nil {
		return corrupt(ci, pi, err)
	}
	return nil
}

// spanSel decodes rows [from, to) with read into a scratch builder of b's type and copies
// the selected runs to b: the rows ReadRange would decode (the range's, or its part in one
// page), so the result is exactly ReadRange's rows. Not supported yet: fields holding
// Arrow dictionaries. A list<dictionary<binary>> slot whose only item is an empty value
// comes back NULL when copied alone (as from a Take of that one row), where ReadRange of
// a longer range has the empty value; callers must not use ReadSel for such fields.
func (rc *readCtx) spanSel(b *encoding.Builder, from, to uint64, rows []uint64,
	read func(s *encoding.Builder, lo, hi uint64) error) error {
	scratch, err := encoding.NewBuilder(b.Type())
	if err != nil {
		return err
	}
	defer scratch.Release()
	first := from
	if err := read(scratch, from, to); err != nil {
		return err
	}
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		if err := b.AppendFrom(scratch, int(rows[i]-first), int(rows[j-1]+1-first)); err != nil {
			return fmt.Errorf("%w: %w", ErrCorruptFile, err)
		}
		i = j
	}
	return nil
}
