package file

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// leafPage is a decoded 2.1+ page (or the decoded chunks of one) of a leaf column.
type leafPage struct {
	levels   *encoding.Levels
	page     *encoding.Page21
	firstRow uint64 // page-local row of the first decoded row
}

// leafPath returns the path from top-level field f down to leaf, with the builders of b's
// tree and which nodes this leaf fills.
func leafPath(f *schema.Field, b *encoding.Builder, leaf *schema.Field) []encoding.PathNode {
	var path []encoding.PathNode
	var walk func(f *schema.Field, b *encoding.Builder) bool
	walk = func(f *schema.Field, b *encoding.Builder) bool {
		node := encoding.PathNode{B: b, IsList: isListLike(f), Owner: columnFields(f, V2_1)[0] == leaf}
		path = append(path, node)
		if f == leaf {
			return true
		}
		if f.IsStruct() || isListLike(f) {
			for i, c := range f.Children {
				if walk(c, b.Child(i)) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	walk(f, b)
	return path
}

// readTop21 appends rows [start, end) of top-level field f of a 2.1+ file to b: each leaf
// column is decoded and assembled along its path.
func (rc *readCtx) readTop21(f *schema.Field, b *encoding.Builder, start, end uint64) error {
	for _, leaf := range columnFields(f, rc.r.version) { // packed structs are leaves
		if err := rc.readLeaf21(leaf, leafPath(f, b, leaf), start, end); err != nil {
			return fmt.Errorf("leaf %q (id %d): %w", leaf.Name, leaf.ID, err)
		}
	}
	return nil
}

func (rc *readCtx) readLeaf21(leaf *schema.Field, path []encoding.PathNode, start, end uint64) error {
	ci, col, err := rc.column(leaf)
	if err != nil {
		return err
	}
	for row := start; row < end; {
		pi := col.pageFor(row)
		if pi >= len(col.pages) {
			return fmt.Errorf("%w: column %d has no page for row %d", ErrCorruptFile, ci, row)
		}
		lo, hi := row-col.starts[pi], min(end, col.starts[pi+1])-col.starts[pi]
		if mb := rc.directMiniBlock(ci, pi); mb != nil {
			if err := rc.miniBlockInto(ci, pi, leaf, mb, path, lo, hi); err != nil {
				return err
			}
			row = col.starts[pi+1]
			continue
		}
		lp, err := rc.leafPage21(ci, pi, leaf, lo, hi)
		if err != nil {
			return err
		}
		if lp.firstRow > lo {
			return corrupt(ci, pi, fmt.Errorf("decoded rows start at %d, need %d", lp.firstRow, lo))
		}
		err = encoding.Assemble(lp.levels, path, lp.page, int(lo-lp.firstRow), int(hi-lp.firstRow))
		if err != nil {
			return corrupt(ci, pi, err)
		}
		row = col.starts[pi+1]
	}
	return nil
}

// leafPage21 decodes the part of page pi of column ci that holds page-local rows [lo, hi).
// Whole pages are cached for the call; mini-block pages without repetition decode only the
// chunks holding the rows.
func (rc *readCtx) leafPage21(ci, pi int, leaf *schema.Field, lo, hi uint64) (*leafPage, error) {
	key := pageKey{ci, pi}
	if lp, ok := rc.pages21[key]; ok {
		return lp, nil
	}
	p := rc.r.columns[ci].pages[pi]
	var lp *leafPage
	var err error
	switch l := p.enc21.GetLayout().(type) {
	case *enc21pb.PageLayout_MiniBlockLayout:
		mb := l.MiniBlockLayout
		if mb.GetRepCompression() == nil && uint64(len(p.bufs)) >= 2 {
			return rc.miniBlockRows(ci, pi, leaf, mb, lo, hi)
		}
		lp, err = rc.miniBlockPage(ci, pi, leaf, mb)
	case *enc21pb.PageLayout_FullZipLayout:
		if l.FullZipLayout.GetBitsRep() == 0 {
			return rc.fullZipRows(ci, pi, leaf, l.FullZipLayout, lo, hi)
		}
		lp, err = rc.fullZipPage(ci, pi, leaf, l.FullZipLayout)
	case *enc21pb.PageLayout_ConstantLayout:
		if constantWithoutLevels(p) {
			return rc.constantRows(ci, pi, leaf, l.ConstantLayout, lo, hi)
		}
		lp, err = rc.constantPage(ci, pi, leaf, l.ConstantLayout)
	case *enc21pb.PageLayout_BlobLayout:
		return nil, encoding.NotSupported("blob page layout")
	default:
		return nil, corrupt(ci, pi, fmt.Errorf("missing page layout"))
	}
	if err != nil {
		return nil, err
	}
	if rc.cache {
		rc.pages21[key] = lp
	}
	return lp, nil
}

// miniBlockRows decodes only the chunks of a mini-block page without repetition that hold
// rows [lo, hi): without lists every row is one visible item.
func (rc *readCtx) miniBlockRows(ci, pi int, leaf *schema.Field, mb *enc21pb.MiniBlockLayout,
	lo, hi uint64) (*leafPage, error) {
	p := rc.r.columns[ci].pages[pi]
	if mb.GetNumItems() != p.length {
		return nil, corrupt(ci, pi, fmt.Errorf("%d items in a page of %d rows without lists", mb.GetNumItems(), p.length))
	}
	sel, data, err := rc.chunkBytes(ci, pi, mb, lo, hi)
	if err != nil {
		return nil, err
	}
	m, err := rc.newMiniBlock(ci, pi, leaf, mb)
	if err != nil {
		return nil, err
	}
	pg, err := m.Decode(sel, data)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	first := lo
	if len(sel) > 0 {
		first = sel[0].FirstItem
	}
	return &leafPage{levels: m.Levels(), page: pg, firstRow: first}, nil
}

// directMiniBlock returns the layout of page pi of column ci if a read can decode it
// straight into the output builders: a mini-block page without levels (every item is one
// valid row). It returns nil otherwise.
func (rc *readCtx) directMiniBlock(ci, pi int) *enc21pb.MiniBlockLayout {
	p := rc.r.columns[ci].pages[pi]
	mb := p.enc21.GetMiniBlockLayout()
	if mb == nil || mb.GetRepCompression() != nil || mb.GetDefCompression() != nil || len(p.bufs) < 2 ||
		mb.GetNumItems() != p.length {
		return nil
	}
	return mb
}

// miniBlockInto appends page-local rows [lo, hi) of a page directMiniBlock accepts to the
// builders of path: the owned nested parents get the slots, the leaf the values, decoded
// in place from the chunks holding the rows.
func (rc *readCtx) miniBlockInto(ci, pi int, leaf *schema.Field, mb *enc21pb.MiniBlockLayout,
	path []encoding.PathNode, lo, hi uint64) error {
	sel, data, err := rc.chunkBytes(ci, pi, mb, lo, hi)
	if err != nil {
		return err
	}
	m, err := rc.newMiniBlock(ci, pi, leaf, mb)
	if err != nil {
		return err
	}
	for _, n := range path[:len(path)-1] {
		if n.Owner {
			if err := n.B.AppendSlots(int(hi-lo), nil, 0); err != nil {
				return corrupt(ci, pi, err)
			}
		}
	}
	if err := m.DecodeRowsInto(path[len(path)-1].B, sel, data, lo, hi); err != nil {
		return corrupt(ci, pi, err)
	}
	return nil
}

// chunkBytes returns the chunks of a mini-block page holding page-local rows [lo, hi)
// and their bytes (data[0] is the first byte of the first chunk).
func (rc *readCtx) chunkBytes(ci, pi int, mb *enc21pb.MiniBlockLayout, lo, hi uint64) ([]encoding.Chunk, []byte, error) {
	chunks, err := rc.chunks(ci, pi, mb)
	if err != nil {
		return nil, nil, err
	}
	sel := selectChunks(chunks, lo, hi)
	var data []byte
	if len(sel) > 0 {
		last := sel[len(sel)-1]
		if data, err = rc.readBufferRange(ci, pi, 1, sel[0].Off, last.Off+last.Size-sel[0].Off); err != nil {
			return nil, nil, err
		}
	}
	return sel, data, nil
}

// newMiniBlock reads the page's dictionary, if any, and prepares chunk decoding.
func (rc *readCtx) newMiniBlock(ci, pi int, leaf *schema.Field, mb *enc21pb.MiniBlockLayout) (*encoding.MiniBlock, error) {
	key := pageKey{ci, pi}
	if m, ok := rc.miniBlocks[key]; ok {
		return m, nil // a Take decoding another chunk of the page: reuse its dictionary
	}
	var dict []byte
	if mb.GetDictionary() != nil {
		var err error
		p := rc.r.columns[ci].pages[pi]
		if len(p.bufs) < 3 {
			return nil, corrupt(ci, pi, fmt.Errorf("dictionary page with %d buffers", len(p.bufs)))
		}
		if dict, err = rc.readBufferRange(ci, pi, 2, 0, p.bufs[2].Size); err != nil {
			return nil, err
		}
	}
	m, err := encoding.NewMiniBlock(mb, leaf.Type, dict)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	if rc.cache || rc.keepMeta {
		rc.miniBlocks[key] = m
	}
	return m, nil
}

// miniBlockPage decodes a whole mini-block page.
func (rc *readCtx) miniBlockPage(ci, pi int, leaf *schema.Field, mb *enc21pb.MiniBlockLayout) (*leafPage, error) {
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	if len(bufs) < 2 {
		return nil, corrupt(ci, pi, fmt.Errorf("mini-block page with %d buffers", len(bufs)))
	}
	chunks, err := encoding.ParseChunkMeta(bufs[0], mb.GetNumItems(), uint64(len(bufs[1])), mb.GetHasLargeChunk())
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	m, err := rc.newMiniBlock(ci, pi, leaf, mb)
	if err != nil {
		return nil, err
	}
	pg, err := m.Decode(chunks, bufs[1])
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	return &leafPage{levels: m.Levels(), page: pg}, nil
}

// fullZipPage decodes a whole full-zip page.
func (rc *readCtx) fullZipPage(ci, pi int, leaf *schema.Field, fz *enc21pb.FullZipLayout) (*leafPage, error) {
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	if len(bufs) < 1 {
		return nil, corrupt(ci, pi, fmt.Errorf("full-zip page without buffers"))
	}
	pg, lv, err := encoding.DecodeFullZip(fz, leaf.Type, bufs[0])
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	return &leafPage{levels: lv, page: pg}, nil
}

// constantPage decodes an all-null (2.1) or constant (2.2) page.
func (rc *readCtx) constantPage(ci, pi int, leaf *schema.Field, cl *enc21pb.ConstantLayout) (*leafPage, error) {
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	pg, lv, err := encoding.DecodeConstant(cl, leaf.Type, bufs, rc.r.columns[ci].pages[pi].length)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	return &leafPage{levels: lv, page: pg}, nil
}

// constantWithoutLevels reports whether a constant page carries no repetition or
// definition levels (its optional value block aside): every row is then the same value
// (or NULL), so any row range decodes alone.
func constantWithoutLevels(p *page) bool {
	levels := p.bufs
	if len(levels)%2 == 1 {
		levels = levels[1:]
	}
	for _, e := range levels {
		if e.Size != 0 {
			return false
		}
	}
	return true
}

// constantRows decodes rows [lo, hi) of a constant page without levels: a batch of a
// large constant page costs its own rows, not the page's.
func (rc *readCtx) constantRows(ci, pi int, leaf *schema.Field, cl *enc21pb.ConstantLayout, lo, hi uint64) (*leafPage, error) {
	bufs, err := rc.pageBuffers(ci, pi)
	if err != nil {
		return nil, err
	}
	pg, lv, err := encoding.DecodeConstant(cl, leaf.Type, bufs, hi-lo)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	return &leafPage{levels: lv, page: pg, firstRow: lo}, nil
}

// fullZipRows decodes only rows [lo, hi) of a full-zip page without repetition, where
// every row is one entry: fixed-width entries have a fixed size, variable-width ones are
// found through the repetition index (buffer 1: rows+1 byte offsets, §5.6.4).
func (rc *readCtx) fullZipRows(ci, pi int, leaf *schema.Field, fz *enc21pb.FullZipLayout,
	lo, hi uint64) (*leafPage, error) {
	p := rc.r.columns[ci].pages[pi]
	if uint64(fz.GetNumItems()) != p.length || len(p.bufs) < 1 {
		return nil, corrupt(ci, pi, fmt.Errorf("full-zip page of %d rows has %d entries", p.length, fz.GetNumItems()))
	}
	start, end, err := rc.fullZipRange(ci, pi, fz, lo, hi)
	if err != nil {
		return nil, err
	}
	data, err := rc.readBufferRange(ci, pi, 0, start, end-start)
	if err != nil {
		return nil, err
	}
	part := proto.Clone(fz).(*enc21pb.FullZipLayout)
	part.NumItems, part.NumVisibleItems = uint32(hi-lo), uint32(hi-lo)
	pg, lv, err := encoding.DecodeFullZip(part, leaf.Type, data)
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	return &leafPage{levels: lv, page: pg, firstRow: lo}, nil
}

// fullZipRange returns the byte range of buffer 0 holding rows [lo, hi).
func (rc *readCtx) fullZipRange(ci, pi int, fz *enc21pb.FullZipLayout, lo, hi uint64) (uint64, uint64, error) {
	p := rc.r.columns[ci].pages[pi]
	if bpv := fz.GetBitsPerValue(); bpv > 0 {
		var ctrl uint64 // control word bytes, as in the full-zip decoder
		switch d := fz.GetBitsDef(); {
		case d == 0:
		case d <= 8:
			ctrl = 1
		case d <= 16:
			ctrl = 2
		default:
			ctrl = 4
		}
		size := ctrl + uint64(bpv/8)
		if hi*size > p.bufs[0].Size {
			return 0, 0, corrupt(ci, pi, fmt.Errorf("%d rows of %d bytes past a %d-byte buffer", hi, size, p.bufs[0].Size))
		}
		return lo * size, hi * size, nil
	}
	if len(p.bufs) < 2 || p.bufs[1].Size%(p.length+1) != 0 {
		return 0, 0, corrupt(ci, pi, fmt.Errorf("full-zip repetition index missing or malformed"))
	}
	w := p.bufs[1].Size / (p.length + 1)
	if w != 1 && w != 2 && w != 4 && w != 8 {
		return 0, 0, corrupt(ci, pi, fmt.Errorf("repetition index entries of %d bytes", w))
	}
	read := func(row uint64) (uint64, error) {
		b, err := rc.readBufferRange(ci, pi, 1, row*w, w)
		if err != nil {
			return 0, err
		}
		var v uint64
		for i := int(w) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v, nil
	}
	start, err := read(lo)
	if err != nil {
		return 0, 0, err
	}
	end, err := read(hi)
	if err != nil {
		return 0, 0, err
	}
	if start > end || end > p.bufs[0].Size {
		return 0, 0, corrupt(ci, pi, fmt.Errorf("repetition index range [%d, %d) of a %d-byte buffer", start, end, p.bufs[0].Size))
	}
	return start, end, nil
}
