package file

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/schema"
)

// listPage is a decoded 2.0 list offsets page (§5.5.3).
type listPage struct {
	offs     []uint64
	nullAdj  uint64
	itemBase uint64 // first item of this page in the items column
}

// readField20 appends rows [start, end) of field f of a 2.0 file to b.
func (rc *readCtx) readField20(f *schema.Field, b *encoding.Builder, start, end uint64) error {
	switch {
	case f.IsStruct() && !isPacked(f, V2_0): // packed structs decode as leaves
		// The header column holds no data: 2.0 cannot store null structs.
		if err := b.AppendSlots(int(end-start), nil, 0); err != nil {
			return err
		}
		for i, c := range f.Children {
			if err := rc.readField20(c, b.Child(i), start, end); err != nil {
				return fmt.Errorf("field %q: %w", c.Name, err)
			}
		}
		return nil
	case f.IsList():
		return rc.readList20(f, b, start, end)
	case f.Type.ID() == arrow.MAP:
		return encoding.NotSupported("map columns in a 2.0 file (Lance writes maps in 2.2+ only)")
	}
	ci, col, err := rc.column(f)
	if err != nil {
		return err
	}
	for row := start; row < end; {
		pi := col.pageFor(row)
		if pi >= len(col.pages) {
			return fmt.Errorf("%w: column %d has no page for row %d", ErrCorruptFile, ci, row)
		}
		pb, err := rc.leafPage20(ci, pi, b)
		if err != nil {
			return err
		}
		lo, hi := row-col.starts[pi], min(end, col.starts[pi+1])-col.starts[pi]
		if err := b.AppendFrom(pb, int(lo), int(hi)); err != nil {
			return corrupt(ci, pi, err)
		}
		row = col.starts[pi+1]
	}
	return nil
}

// leafPage20 decodes (once per call) page pi of leaf column ci into a scratch builder of
// b's type.
func (rc *readCtx) leafPage20(ci, pi int, b *encoding.Builder) (*encoding.Builder, error) {
	key := pageKey{ci, pi}
	if pb, ok := rc.pages20[key]; ok {
		return pb, nil
	}
	p := rc.r.columns[ci].pages[pi]
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	pb, err := encoding.NewBuilder(b.Type())
	if err != nil {
		return nil, err
	}
	if err := encoding.Decode20(pb, p.enc20, bufs, p.length); err != nil {
		return nil, corrupt(ci, pi, err)
	}
	if uint64(pb.Len()) != p.length {
		return nil, corrupt(ci, pi, fmt.Errorf("decoded %d rows, page has %d", pb.Len(), p.length))
	}
	if rc.cache {
		rc.pages20[key] = pb
	}
	return pb, nil
}

// readList20 appends rows [start, end) of a 2.0 list field: offsets from the list's own
// column, items from the item field's columns.
func (rc *readCtx) readList20(f *schema.Field, b *encoding.Builder, start, end uint64) error {
	ci, col, err := rc.column(f)
	if err != nil {
		return err
	}
	for row := start; row < end; {
		pi := col.pageFor(row)
		if pi >= len(col.pages) {
			return fmt.Errorf("%w: column %d has no page for row %d", ErrCorruptFile, ci, row)
		}
		lp, err := rc.listPage20(ci, pi)
		if err != nil {
			return err
		}
		lo, hi := row-col.starts[pi], min(end, col.starts[pi+1])-col.starts[pi]
		itemLo, itemHi, ends, valid := lp.rows(lo, hi)
		if itemLo > itemHi {
			return corrupt(ci, pi, fmt.Errorf("list offsets go backwards (%d > %d)", itemLo, itemHi))
		}
		base := b.ChildLen()
		if err := b.AppendListEnds(base-int64(itemLo), ends, valid); err != nil {
			return corrupt(ci, pi, err)
		}
		if err := rc.readField20(f.Children[0], b.Child(0), lp.itemBase+itemLo, lp.itemBase+itemHi); err != nil {
			return fmt.Errorf("list %q items: %w", f.Name, err)
		}
		row = col.starts[pi+1]
	}
	return nil
}

// rows returns, for page-local rows [lo, hi): the page-local item range they cover, each
// row's item end (page-local) and validity.
func (lp *listPage) rows(lo, hi uint64) (itemLo, itemHi uint64, ends []int64, valid []bool) {
	end := func(i uint64) uint64 {
		if lp.nullAdj == 0 {
			return lp.offs[i]
		}
		return lp.offs[i] % lp.nullAdj
	}
	if lo > 0 {
		itemLo = end(lo - 1)
	}
	itemHi = itemLo
	ends = make([]int64, 0, hi-lo)
	valid = make([]bool, 0, hi-lo)
	for i := lo; i < hi; i++ {
		e := max(end(i), itemHi) // offsets never go backwards; clamp hostile ones
		ends = append(ends, int64(e))
		valid = append(valid, lp.nullAdj == 0 || lp.offs[i] < lp.nullAdj)
		itemHi = e
	}
	return itemLo, itemHi, ends, valid
}

// listPage20 decodes (once per call) page pi of list offsets column ci.
func (rc *readCtx) listPage20(ci, pi int) (*listPage, error) {
	key := pageKey{ci, pi}
	if lp, ok := rc.lists20[key]; ok {
		return lp, nil
	}
	col := rc.r.columns[ci]
	p := col.pages[pi]
	le := p.enc20.GetList()
	if le == nil {
		return nil, corrupt(ci, pi, fmt.Errorf("list column page is not a List encoding"))
	}
	// The items of page pi start after the items of all earlier pages.
	var base uint64
	for k := 0; k < pi; k++ {
		base += col.pages[k].enc20.GetList().GetNumItems()
	}
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	offs, err := encoding.DecodeUints20(le.GetOffsets(), bufs, p.length)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	lp := &listPage{offs: offs, nullAdj: le.GetNullOffsetAdjustment(), itemBase: base}
	for _, o := range offs {
		if lp.nullAdj != 0 {
			o %= lp.nullAdj
		}
		if o > le.GetNumItems() {
			return nil, corrupt(ci, pi, fmt.Errorf("list offset %d past %d items", o, le.GetNumItems()))
		}
	}
	if rc.cache {
		rc.lists20[key] = lp
	}
	return lp, nil
}
