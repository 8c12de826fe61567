package file

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// coalesceGap is the largest gap of unrequested bytes between two planned reads that are
// merged into one request; maxCoalesced caps the size a merge may grow a request to (larger
// single reads stay whole), so big requests still spread over the concurrent readers.
const (
	coalesceGap  = 4 << 10
	maxCoalesced = 8 << 20
)

// maxInFlight bounds the concurrent range reads of one prefetch round (prefetch21).
const maxInFlight = 8

// readCounterKey is the context key of a *atomic.Int64 counting bytes read.
type readCounterKey struct{}

// WithReadCounter returns a context under which every byte a Reader reads from its store
// (metadata at Open, page data in ReadRange and Take) is added to n. Scans use it to report
// the bytes they read from shared, cached Readers. Page bytes served by a BlockCache are
// not read from the store and are not counted: n is store traffic, not bytes decoded.
func WithReadCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, readCounterKey{}, n)
}

// cacheCounterKey is the context key of a *atomic.Int64 counting page bytes served by a
// BlockCache.
type cacheCounterKey struct{}

// WithCacheCounter returns a context under which every page byte a Reader takes from its
// BlockCache instead of its store is added to n (EXPLAIN ANALYZE shows it beside the bytes
// read, as a database shows buffer hits beside reads).
func WithCacheCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, cacheCounterKey{}, n)
}

func countCached(ctx context.Context, n int) {
	if c, ok := ctx.Value(cacheCounterKey{}).(*atomic.Int64); ok {
		c.Add(int64(n))
	}
}

func countRead(ctx context.Context, n int) {
	if c, ok := ctx.Value(readCounterKey{}).(*atomic.Int64); ok {
		c.Add(int64(n))
	}
}

// block is bytes [off, off+len(data)) of the file, fetched ahead of decoding.
type block struct {
	off  uint64
	data []byte
}

// lookup returns bytes [off, off+n) if one prefetched block holds all of them.
func (rc *readCtx) lookup(off, n uint64) ([]byte, bool) {
	for _, gen := range rc.blocks {
		i := sort.Search(len(gen), func(i int) bool { return gen[i].off > off }) - 1
		if i >= 0 && off+n <= gen[i].off+uint64(len(gen[i].data)) {
			s := off - gen[i].off
			return gen[i].data[s : s+n : s+n], true
		}
	}
	return nil, false
}

// readAt returns bytes [off, off+n) of the file, from the prefetched blocks when they hold
// them and from the store otherwise.
func (rc *readCtx) readAt(off, n uint64) ([]byte, error) {
	if b, ok := rc.lookup(off, n); ok {
		return b, nil
	}
	return rc.readPage(rc.ctx, off, n)
}

// readPage reads bytes [off, off+n) of the file: from the Reader's block cache when it
// holds them, else from the store into fresh memory the cache then keeps, or, for Readers
// without a cache and reads too large for it, into a page buffer that rc owns until release
// (the end of the call). It is safe for concurrent use (prefetch reads in parallel).
func (rc *readCtx) readPage(ctx context.Context, off, n uint64) ([]byte, error) {
	r := rc.r
	if off > r.size || n > r.size-off {
		return nil, fmt.Errorf("%w: read [%d, +%d) past the end (%d)", ErrCorruptFile, off, n, r.size)
	}
	if r.blocks != nil && r.blocks.fits(n) {
		if b, ok := r.blocks.get(r.fileID, off, n); ok {
			countCached(ctx, len(b))
			return b, nil
		}
		b, err := rc.readFresh(ctx, off, n)
		if err != nil {
			return nil, err
		}
		return r.blocks.put(r.fileID, off, b), nil
	}
	buf, h := getPage(int(n))
	rc.mu.Lock()
	rc.pageBufs = append(rc.pageBufs, h)
	rc.mu.Unlock()
	return rc.readInto(ctx, off, buf)
}

// readFresh reads bytes [off, off+n) of the file into new memory, nobody else's.
func (rc *readCtx) readFresh(ctx context.Context, off, n uint64) ([]byte, error) {
	return rc.readInto(ctx, off, make([]byte, n))
}

// readInto reads len(buf) bytes at off of the file (into buf when the store can), counting
// them as read from the store.
func (rc *readCtx) readInto(ctx context.Context, off uint64, buf []byte) ([]byte, error) {
	b, err := lanceio.ReadInto(ctx, rc.r.store, rc.r.path, int64(off), buf)
	if err != nil {
		return nil, fmt.Errorf("read [%d, +%d): %w", off, len(buf), err)
	}
	countRead(ctx, len(b))
	return b, nil
}

// release gives the call's page buffers back to the pool. Nothing may use bytes read
// through rc afterwards; arrays the call returned never point into them.
func (rc *readCtx) release() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, h := range rc.pageBufs {
		putPage(h)
	}
	rc.pageBufs, rc.blocks = nil, nil
}

// fetch reads the planned extents: sorted, merged across gaps up to coalesceGap, and read
// with at most maxInFlight requests at a time. The blocks join rc's prefetched data. With a
// block cache, extents it holds are taken from it and the others, read merged as without
// it, are cached one by one (as slices of the merged reads), so later calls planning other
// combinations of the same page buffers still find them.
func (rc *readCtx) fetch(want []Extent) error {
	slices.SortFunc(want, func(a, b Extent) int {
		if a.Pos != b.Pos {
			return cmp.Compare(a.Pos, b.Pos)
		}
		return cmp.Compare(a.Size, b.Size)
	})
	want = slices.Compact(want)
	want = slices.DeleteFunc(want, func(e Extent) bool {
		b, ok := rc.lookup(e.Pos, e.Size)
		if ok && rc.r.blocks != nil { // inside an earlier round's read: cache it on its own
			rc.r.blocks.putCopy(rc.r.fileID, e.Pos, b)
		}
		return ok || e.Size == 0
	})
	want = rc.fetchCached(want)
	if len(want) == 0 {
		return nil
	}
	merged := []Extent{want[0]}
	for _, e := range want[1:] {
		last := &merged[len(merged)-1]
		end := max(last.End(), e.End())
		if e.Pos <= last.End()+coalesceGap && end-last.Pos <= maxCoalesced {
			last.Size = end - last.Pos
		} else if e.End() > last.End() {
			merged = append(merged, e)
		}
	}
	gen := make([]block, len(merged))
	g, ctx := errgroup.WithContext(rc.ctx)
	g.SetLimit(maxInFlight)
	for i, e := range merged {
		g.Go(func() error {
			var b []byte
			var err error
			if rc.r.blocks != nil {
				b, err = rc.readFresh(ctx, e.Pos, e.Size)
			} else {
				b, err = rc.readPage(ctx, e.Pos, e.Size)
			}
			if err != nil {
				return fmt.Errorf("prefetch: %w", err)
			}
			gen[i] = block{off: e.Pos, data: b}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	rc.blocks = append(rc.blocks, gen)
	rc.cacheFetched(want, gen)
	return nil
}

// fetchCached moves the extents of want (sorted) the block cache holds into a generation of
// rc's prefetched data and returns the others (want itself without a cache).
func (rc *readCtx) fetchCached(want []Extent) []Extent {
	bc := rc.r.blocks
	if bc == nil {
		return want
	}
	var hits []block
	want = slices.DeleteFunc(want, func(e Extent) bool {
		if !bc.fits(e.Size) {
			return false
		}
		b, ok := bc.get(rc.r.fileID, e.Pos, e.Size)
		if ok {
			countCached(rc.ctx, len(b))
			hits = append(hits, block{off: e.Pos, data: b})
		}
		return ok
	})
	if len(hits) > 0 {
		rc.blocks = append(rc.blocks, hits)
	}
	return want
}

// cacheFetched puts each extent of want (sorted) into the block cache: the block of gen
// (sorted, merged) holding it when the extent is that whole block, a copy of its bytes
// otherwise, so that no cached extent keeps a larger merged read alive (the cache counts
// only the extent's bytes) after the rest of the read was evicted.
func (rc *readCtx) cacheFetched(want []Extent, gen []block) {
	bc := rc.r.blocks
	if bc == nil {
		return
	}
	j := 0
	for _, e := range want {
		for j < len(gen) && gen[j].off+uint64(len(gen[j].data)) < e.End() {
			j++
		}
		if j == len(gen) || gen[j].off > e.Pos {
			return // unreachable: every extent lies in the merged read that covers it
		}
		s := e.Pos - gen[j].off
		b := gen[j].data[s : s+e.Size : s+e.Size]
		if e.Size < uint64(len(gen[j].data)) {
			b = slices.Clone(b)
		}
		bc.put(rc.r.fileID, e.Pos, b)
	}
}

// forPages calls fn for every page of col holding rows of [start, end), with the page-local
// row range.
func forPages(col *column, ci int, start, end uint64, fn func(pi int, lo, hi uint64) error) error {
	for row := start; row < end; {
		pi := col.pageFor(row)
		if pi >= len(col.pages) {
			return fmt.Errorf("%w: column %d has no page for row %d", ErrCorruptFile, ci, row)
		}
		if err := fn(pi, row-col.starts[pi], min(end, col.starts[pi+1])-col.starts[pi]); err != nil {
			return err
		}
		row = col.starts[pi+1]
	}
	return nil
}

// leafCol is one leaf column of a 2.1+ file.
type leafCol struct {
	leaf *schema.Field
	ci   int
	col  *column
}

// prefetch21 plans and fetches, before decoding, the bytes a multi-run call (a Take) of a
// 2.1+ file will read, in two rounds: first what is known from the metadata (mini-block
// chunk tables and dictionaries, fixed-width full-zip rows, repetition index entries, whole
// pages of other layouts), then the mini-block chunks and variable-width full-zip rows those
// locate. Decoding then finds every read in memory; anything not planned is read as before.
func (rc *readCtx) prefetch21(fieldIDs []int32, runs [][2]uint64) error {
	var leaves []leafCol
	for _, id := range fieldIDs {
		f, err := rc.r.topField(id)
		if err != nil {
			return err
		}
		for _, leaf := range columnFields(f, rc.r.version) {
			ci, col, err := rc.column(leaf)
			if err != nil {
				return err
			}
			leaves = append(leaves, leafCol{leaf: leaf, ci: ci, col: col})
		}
	}
	for round := range 2 {
		var want []Extent
		for _, l := range leaves {
			for _, run := range runs {
				err := forPages(l.col, l.ci, run[0], run[1], func(pi int, lo, hi uint64) error {
					var err error
					want, err = rc.plan21(want, l.ci, pi, lo, hi, round)
					return err
				})
				if err != nil {
					return err
				}
			}
		}
		if err := rc.fetch(want); err != nil {
			return err
		}
	}
	return nil
}

// plan21 appends to want the extents page pi of column ci needs for page-local rows
// [lo, hi) in the given round (see prefetch21). Planning errors are left for decoding to
// report: plan21 then simply plans nothing more for the page.
func (rc *readCtx) plan21(want []Extent, ci, pi int, lo, hi uint64, round int) ([]Extent, error) {
	p := rc.r.columns[ci].pages[pi]
	whole := func() []Extent {
		if round == 0 && !rc.planned[pageKey{ci, pi}] {
			rc.planned[pageKey{ci, pi}] = true
			return append(want, p.bufs...)
		}
		return want
	}
	switch l := p.enc21.GetLayout().(type) {
	case *enc21pb.PageLayout_MiniBlockLayout:
		mb := l.MiniBlockLayout
		if mb.GetRepCompression() != nil || len(p.bufs) < 2 {
			return whole(), nil
		}
		if round == 0 {
			return whole21Meta(want, rc, ci, pi, mb), nil
		}
		chunks, err := rc.chunks(ci, pi, mb)
		if err != nil {
			return want, nil
		}
		if sel := selectChunks(chunks, lo, hi); len(sel) > 0 {
			last := sel[len(sel)-1]
			want = append(want, Extent{p.bufs[1].Pos + sel[0].Off, last.Off + last.Size - sel[0].Off})
		}
		return want, nil
	case *enc21pb.PageLayout_FullZipLayout:
		fz := l.FullZipLayout
		if fz.GetBitsRep() != 0 {
			return whole(), nil
		}
		if fz.GetBitsPerValue() == 0 && round == 0 { // repetition index entries first
			if len(p.bufs) >= 2 && p.bufs[1].Size%(p.length+1) == 0 {
				w := p.bufs[1].Size / (p.length + 1)
				want = append(want, Extent{p.bufs[1].Pos + lo*w, w}, Extent{p.bufs[1].Pos + hi*w, w})
			}
			return want, nil
		}
		if (fz.GetBitsPerValue() > 0) != (round == 0) || len(p.bufs) < 1 {
			return want, nil
		}
		start, end, err := rc.fullZipRange(ci, pi, fz, lo, hi)
		if err != nil {
			return want, nil
		}
		return append(want, Extent{p.bufs[0].Pos + start, end - start}), nil
	default:
		return whole(), nil
	}
}

// whole21Meta plans, once per page, a mini-block page's chunk table and dictionary.
func whole21Meta(want []Extent, rc *readCtx, ci, pi int, mb *enc21pb.MiniBlockLayout) []Extent {
	key := pageKey{ci, pi}
	if rc.planned[key] {
		return want
	}
	rc.planned[key] = true
	p := rc.r.columns[ci].pages[pi]
	if _, kept := rc.r.meta.get(key); !kept {
		want = append(want, p.bufs[0])
	}
	if mb.GetDictionary() != nil && len(p.bufs) >= 3 {
		want = append(want, p.bufs[2])
	}
	return want
}

// chunks returns the parsed chunk table of mini-block page pi of column ci, once per call
// (once per Cursor), or once per Reader when it keeps page metadata (OpenWith).
func (rc *readCtx) chunks(ci, pi int, mb *enc21pb.MiniBlockLayout) ([]encoding.Chunk, error) {
	key := pageKey{ci, pi}
	if c, ok := rc.chunkTabs[key]; ok {
		return c, nil
	}
	if c, ok := rc.r.meta.get(key); ok {
		if rc.cache || rc.keepMeta {
			rc.chunkTabs[key] = c
		}
		return c, nil
	}
	p := rc.r.columns[ci].pages[pi]
	meta, err := rc.readBufferRange(ci, pi, 0, 0, p.bufs[0].Size)
	if err != nil {
		return nil, err
	}
	c, err := encoding.ParseChunkMeta(meta, mb.GetNumItems(), p.bufs[1].Size, mb.GetHasLargeChunk())
	if err != nil {
		return nil, corrupt(ci, pi, err)
	}
	rc.r.meta.add(key, c)
	if rc.cache || rc.keepMeta {
		rc.chunkTabs[key] = c
	}
	return c, nil
}

// selectChunks returns the chunks holding page-local items [lo, hi).
func selectChunks(chunks []encoding.Chunk, lo, hi uint64) []encoding.Chunk {
	c0 := sort.Search(len(chunks), func(i int) bool { return chunks[i].FirstItem+chunks[i].Items > lo })
	c1 := c0 + sort.Search(len(chunks)-c0, func(i int) bool { return chunks[c0+i].FirstItem >= hi })
	return chunks[c0:c1]
}
