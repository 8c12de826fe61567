package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// releaser is an accumulator that holds Arrow memory until the aggregate closes.
type releaser interface{ release() }

// rowStore keeps argument values of any type that an accumulator returns at the end, as
// retained chunks; a value is referred to by its position in the chunks' concatenation.
type rowStore struct {
	mem    memory.Allocator
	dt     arrow.DataType
	chunks []arrow.Array
	rows   int64
	bytes  int64 // buffers the chunks hold (for the memory pool)
}

// add retains arr and returns the position of its first row.
func (s *rowStore) add(arr arrow.Array) int64 {
	arr.Retain()
	s.chunks = append(s.chunks, arr)
	s.bytes += dataBytes(arr.Data())
	base := s.rows
	s.rows += int64(arr.Len())
	return base
}

// takeRows appends the given rows of arr as a new chunk and returns the position of the
// first of them.
func (s *rowStore) takeRows(arr arrow.Array, rows []int32) (int64, error) {
	idx := kernel.NewFixed[int32](s.mem, arrow.PrimitiveTypes.Int32, len(rows))
	copy(idx.Values, rows)
	ia := idx.Finish()
	defer ia.Release()
	t, err := compute.TakeArray(compute.WithAllocator(context.Background(), s.mem), arr, ia)
	if err != nil {
		return 0, dberr.Wrap(dberr.Internal, err, "aggregate: keep values")
	}
	defer t.Release()
	return s.add(t), nil
}

// gather returns the values at refs; a negative ref gives NULL.
func (s *rowStore) gather(refs []int64) (arrow.Array, error) {
	nullRow := kernel.ArrayOfNull(s.mem, s.dt, 1)
	defer nullRow.Release()
	parts := append(append([]arrow.Array{}, s.chunks...), nullRow)
	all, err := array.Concatenate(parts, s.mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "aggregate: concatenate values")
	}
	defer all.Release()
	idx := kernel.NewFixed[int64](s.mem, arrow.PrimitiveTypes.Int64, len(refs))
	for i, r := range refs {
		if r < 0 {
			r = s.rows
		}
		idx.Values[i] = r
	}
	ia := idx.Finish()
	defer ia.Release()
	out, err := compute.TakeArray(compute.WithAllocator(context.Background(), s.mem), all, ia)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "aggregate: gather values")
	}
	return out, nil
}

// compact replaces the chunks with only the rows at refs (>= 0), rewriting refs.
func (s *rowStore) compact(refs []int64) error {
	out, err := s.gather(refs)
	if err != nil {
		return err
	}
	s.release()
	s.add(out)
	out.Release()
	for i, r := range refs {
		if r >= 0 {
			refs[i] = int64(i)
		}
	}
	return nil
}

func (s *rowStore) release() {
	releaseArrays(s.chunks)
	s.chunks, s.rows, s.bytes = nil, 0, 0
}

// pickAcc is first(x) and last(x) (which keep NULL values: DuckDB's first returns the first
// value, NULL or not) and any_value(x) (the first non-NULL value).
type pickAcc struct {
	last, skipNulls bool
	store           rowStore
	refs            []int64 // per group: position in store, -1 none
}

func newPick(fn string, argType arrow.DataType, mem memory.Allocator) *pickAcc {
	return &pickAcc{last: fn == "last", skipNulls: fn == "any_value", store: rowStore{mem: mem, dt: argType}}
}

func (p *pickAcc) resize(n int) {
	for len(p.refs) < n {
		p.refs = append(p.refs, -1)
	}
}

func (p *pickAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	pos := map[int32]int{} // group → index into rows, for the groups this batch sets
	var rows []int32
	for i, g := range groups {
		if (include != nil && !include[i]) || (p.skipNulls && !kernel.IsValid(arg, i)) {
			continue
		}
		if !p.last && p.refs[g] >= 0 {
			continue
		}
		k, dup := pos[g]
		switch {
		case !dup:
			pos[g] = len(rows)
			rows = append(rows, int32(i))
		case p.last:
			rows[k] = int32(i)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	base, err := p.store.takeRows(arg, rows)
	if err != nil {
		return err
	}
	for g, k := range pos {
		p.refs[g] = base + int64(k)
	}
	if p.store.rows > 2*int64(len(p.refs))+1024 {
		return p.store.compact(p.refs)
	}
	return nil
}

func (p *pickAcc) finish(memory.Allocator, arrow.DataType) (arrow.Array, error) {
	return p.store.gather(p.refs)
}

func (p *pickAcc) release() { p.store.release() }

func (p *pickAcc) stateBytes() int64 { return p.store.bytes }

// listAcc is list(x): every included value (NULLs too) in input order; a group without
// values gives NULL.
type listAcc struct {
	store rowStore
	refs  [][]int64
}

func (l *listAcc) resize(n int) { l.refs = grow(l.refs, n) }

func (l *listAcc) stateBytes() int64 { return l.store.bytes + 8*l.store.rows }

func (l *listAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	base := int64(-1)
	for i, g := range groups {
		if include != nil && !include[i] {
			continue
		}
		if base < 0 {
			base = l.store.add(arg)
		}
		l.refs[g] = append(l.refs[g], base+int64(i))
	}
	return nil
}

func (l *listAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	var all []int64
	offsets := make([]int32, len(l.refs)+1)
	for g, rs := range l.refs {
		all = append(all, rs...)
		offsets[g+1] = int32(len(all))
	}
	values, err := l.store.gather(all)
	if err != nil {
		return nil, err
	}
	defer values.Release()
	lt, ok := dt.(*arrow.ListType)
	if !ok || !arrow.TypeEqual(lt.Elem(), values.DataType()) {
		lt = arrow.ListOf(values.DataType())
	}
	return buildList(mem, lt, values, offsets, func(g int) bool { return len(l.refs[g]) > 0 }), nil
}

func (l *listAcc) release() { l.store.release() }

// buildList assembles a list array over values with the given offsets.
func buildList(mem memory.Allocator, lt *arrow.ListType, values arrow.Array, offsets []int32, valid func(int) bool) arrow.Array {
	n := len(offsets) - 1
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize(len(offsets) * 4)
	copy(arrow.Int32Traits.CastFromBytes(offBuf.Bytes()), offsets)
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(n))))
	nulls := 0
	for g := range n {
		bitutil.SetBitTo(bits.Bytes(), g, valid(g))
		if !valid(g) {
			nulls++
		}
	}
	data := array.NewData(lt, n, []*memory.Buffer{bits, offBuf}, []arrow.ArrayData{values.Data()}, nulls, 0)
	bits.Release()
	offBuf.Release()
	defer data.Release()
	return array.MakeFromData(data)
}
