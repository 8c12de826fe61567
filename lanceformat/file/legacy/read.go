package legacy

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
)

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
	runs, err := file.RowRuns(r.path, r.numRows, rows)
	if err != nil {
		return nil, err
	}
	return r.read(ctx, fieldIDs, runs, mem)
}

func (r *Reader) read(ctx context.Context, fieldIDs []int32, runs [][2]uint64,
	mem memory.Allocator) (_ []arrow.Array, err error) {
	out := make([]arrow.Array, 0, len(fieldIDs))
	defer func() {
		if err != nil {
			for _, a := range out {
				a.Release()
			}
		}
	}()
	for _, id := range fieldIDs {
		f := r.schema.FieldByID(id)
		if f == nil {
			return nil, fmt.Errorf("read %s: field %d is not in the schema", r.path, id)
		}
		a, err := r.readRuns(ctx, f, runs, mem)
		if err != nil {
			return nil, fmt.Errorf("read %s field %q: %w", r.path, f.Name, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// readRuns reads the runs of one field, batch by batch, and concatenates the pieces.
func (r *Reader) readRuns(ctx context.Context, f *schema.Field, runs [][2]uint64,
	mem memory.Allocator) (arrow.Array, error) {
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for _, run := range runs {
		for row := run[0]; row < run[1]; {
			b := r.meta.batchOf(row)
			base := uint64(r.meta.BatchOffsets[b])
			end := min(run[1], uint64(r.meta.BatchOffsets[b+1]))
			a, err := r.readField(ctx, f, b, row-base, end-base, mem)
			if err != nil {
				return nil, fmt.Errorf("batch %d: %w", b, err)
			}
			parts = append(parts, a)
			row = end
		}
	}
	switch len(parts) {
	case 0:
		return array.MakeArrayOfNull(mem, f.Type, 0), nil
	case 1:
		parts[0].Retain()
		return parts[0], nil
	}
	return array.Concatenate(parts, mem)
}

// readField reads values [a, b) of field f in batch.
func (r *Reader) readField(ctx context.Context, f *schema.Field, batch int, a, b uint64,
	mem memory.Allocator) (arrow.Array, error) {
	data, err := r.readData(ctx, f, f.Type, batch, a, b, mem)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// readData reads values [a, b) of field f (of type dt) in batch as ArrayData.
func (r *Reader) readData(ctx context.Context, f *schema.Field, dt arrow.DataType, batch int,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	switch dt.ID() {
	case arrow.NULL:
		return newData(dt, int(b-a), []*memory.Buffer{nil}, nil, int(b-a), 0), nil
	case arrow.STRUCT:
		return r.readStruct(ctx, f, dt, batch, a, b, mem)
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return r.readBinary(ctx, f, dt, batch, a, b, mem)
	case arrow.LIST, arrow.LARGE_LIST:
		return r.readList(ctx, f, dt, batch, a, b, mem)
	case arrow.DICTIONARY:
		return r.readDictionary(ctx, f, dt.(*arrow.DictionaryType), batch, a, b, mem)
	}
	if _, ok := fixedWidth(dt); ok || dt.ID() == arrow.BOOL {
		return r.readFixed(ctx, f, dt, batch, a, b, mem)
	}
	return nil, encoding.NotSupported("legacy v1 field %q of type %s", f.Name, dt)
}

func (r *Reader) pageOf(f *schema.Field, batch int, a, b uint64) (page, error) {
	p, err := r.page(f.ID, batch)
	if err != nil {
		return p, err
	}
	if b > p.length {
		return p, fmt.Errorf("%w: rows [%d, %d) past page of %d values", ErrCorruptFile, a, b, p.length)
	}
	return p, nil
}

// fixedWidth returns the byte width of fixed-stride types other than booleans.
func fixedWidth(dt arrow.DataType) (int, bool) {
	switch t := dt.(type) {
	case arrow.FixedWidthDataType:
		if dt.ID() == arrow.BOOL || t.BitWidth()%8 != 0 {
			return 0, false
		}
		return t.BitWidth() / 8, true
	case *arrow.FixedSizeListType:
		w, ok := fixedWidth(t.Elem())
		return w * int(t.Len()), ok
	}
	return 0, false
}

// readFixed reads plain-encoded fixed-stride values (no validity).
func (r *Reader) readFixed(ctx context.Context, f *schema.Field, dt arrow.DataType, batch int,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	p, err := r.pageOf(f, batch, a, b)
	if err != nil {
		return nil, err
	}
	n := int(b - a)
	if dt.ID() == arrow.BOOL {
		first, last := a/8, (b+7)/8
		raw, err := r.readAt(ctx, p.pos+first, last-first)
		if err != nil {
			return nil, err
		}
		return newData(dt, n, []*memory.Buffer{nil, copyBuf(mem, raw)}, nil, 0, int(a%8)), nil
	}
	w, _ := fixedWidth(dt)
	if w == 0 || p.length > r.size/uint64(w) {
		return nil, fmt.Errorf("%w: page of %d values of %d bytes does not fit in the file (%d bytes)",
			ErrCorruptFile, p.length, w, r.size)
	}
	raw, err := r.readAt(ctx, p.pos+a*uint64(w), uint64(n*w))
	if err != nil {
		return nil, err
	}
	return fixedData(dt, n, raw, mem), nil
}

// fixedData builds ArrayData of n fixed-width values from raw bytes.
func fixedData(dt arrow.DataType, n int, raw []byte, mem memory.Allocator) arrow.ArrayData {
	if fsl, ok := dt.(*arrow.FixedSizeListType); ok {
		child := fixedData(fsl.Elem(), n*int(fsl.Len()), raw, mem)
		defer child.Release()
		return newData(dt, n, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0)
	}
	return newData(dt, n, []*memory.Buffer{nil, copyBuf(mem, raw)}, nil, 0, 0)
}

func copyBuf(mem memory.Allocator, raw []byte) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(raw))
	copy(buf.Bytes(), raw)
	return buf
}

// readStruct reads a struct's children; v1 structs have no validity.
func (r *Reader) readStruct(ctx context.Context, f *schema.Field, dt arrow.DataType, batch int,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	st := dt.(*arrow.StructType)
	if len(f.Children) != st.NumFields() {
		return nil, fmt.Errorf("%w: struct %q has %d children, type has %d", ErrCorruptFile, f.Name, len(f.Children), st.NumFields())
	}
	children := make([]arrow.ArrayData, 0, len(f.Children))
	defer func() {
		for _, c := range children {
			c.Release()
		}
	}()
	for i, c := range f.Children {
		d, err := r.readData(ctx, c, st.Field(i).Type, batch, a, b, mem)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", c.Name, err)
		}
		children = append(children, d)
	}
	return newData(dt, int(b-a), []*memory.Buffer{nil}, children, 0, 0), nil
}

// readOffsets reads the n+1 little-endian offsets of values [a, b) of a page whose offsets
// are width bytes wide.
func (r *Reader) readOffsets(ctx context.Context, p page, a, b uint64, width int) ([]int64, error) {
	if p.length >= r.size/uint64(width) {
		return nil, fmt.Errorf("%w: page of %d offsets does not fit in the file (%d bytes)", ErrCorruptFile, p.length+1, r.size)
	}
	raw, err := r.readAt(ctx, p.pos+a*uint64(width), (b-a+1)*uint64(width))
	if err != nil {
		return nil, err
	}
	out := make([]int64, b-a+1)
	for i := range out {
		if width == 4 {
			out[i] = int64(int32(binary.LittleEndian.Uint32(raw[i*4:])))
		} else {
			out[i] = int64(binary.LittleEndian.Uint64(raw[i*8:]))
		}
		if out[i] < 0 || (i > 0 && out[i] < out[i-1]) {
			return nil, fmt.Errorf("%w: offsets %v descend or are negative", ErrCorruptFile, out[max(i-1, 0):i+1])
		}
	}
	return out, nil
}

// newData wraps array.NewData and hands it this function's references to bufs.
func newData(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.ArrayData,
	nulls, offset int) arrow.ArrayData {
	d := array.NewData(dt, n, bufs, children, nulls, offset)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return d
}
