package legacy

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/schema"
)

// readBinary reads var-binary values [a, b): the page holds length+1 i64 absolute file
// positions of the values. In a nullable field an empty value reads as null.
func (r *Reader) readBinary(ctx context.Context, f *schema.Field, dt arrow.DataType, batch int,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	p, err := r.pageOf(f, batch, a, b)
	if err != nil {
		return nil, err
	}
	return r.readBinaryPage(ctx, p, dt, f.Nullable, a, b, mem)
}

// readBinaryPage reads values [a, b) of the var-binary page p.
func (r *Reader) readBinaryPage(ctx context.Context, p page, dt arrow.DataType, nullable bool,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	pos, err := r.readOffsets(ctx, p, a, b, 8)
	if err != nil {
		return nil, err
	}
	n := int(b - a)
	values, err := r.readAt(ctx, uint64(pos[0]), uint64(pos[n]-pos[0]))
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	large := dt.ID() == arrow.LARGE_STRING || dt.ID() == arrow.LARGE_BINARY
	if !large && pos[n]-pos[0] > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d value bytes overflow 32-bit offsets", ErrCorruptFile, pos[n]-pos[0])
	}
	offs := offsetsBuf(mem, pos, large)
	validity, nulls := emptyAsNull(mem, nullable, pos)
	return newData(dt, n, []*memory.Buffer{validity, offs, copyBuf(mem, values)}, nil, nulls, 0), nil
}

// offsetsBuf rebases positions to start at 0, as int32 or int64 offsets.
func offsetsBuf(mem memory.Allocator, pos []int64, large bool) *memory.Buffer {
	w := 4
	if large {
		w = 8
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(pos) * w)
	for i, p := range pos {
		if large {
			binary.LittleEndian.PutUint64(buf.Bytes()[i*8:], uint64(p-pos[0]))
		} else {
			binary.LittleEndian.PutUint32(buf.Bytes()[i*4:], uint32(p-pos[0]))
		}
	}
	return buf
}

// emptyAsNull returns a validity bitmap marking empty values null (nil when none are or
// the field is not nullable) and the null count.
func emptyAsNull(mem memory.Allocator, nullable bool, pos []int64) (*memory.Buffer, int) {
	n := len(pos) - 1
	if !nullable {
		return nil, 0
	}
	nulls := 0
	for i := range n {
		if pos[i+1] == pos[i] {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(buf.Bytes())
	for i := range n {
		if pos[i+1] != pos[i] {
			bitutil.SetBit(buf.Bytes(), i)
		}
	}
	return buf, nulls
}

// readList reads list values [a, b): the page holds length+1 offsets (i32 for list, i64 for
// large_list) into the child's page of the same batch.
func (r *Reader) readList(ctx context.Context, f *schema.Field, dt arrow.DataType, batch int,
	a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	if len(f.Children) != 1 {
		return nil, fmt.Errorf("%w: list %q has %d children", ErrCorruptFile, f.Name, len(f.Children))
	}
	large := dt.ID() == arrow.LARGE_LIST
	width := 4
	if large {
		width = 8
	}
	p, err := r.pageOf(f, batch, a, b)
	if err != nil {
		return nil, err
	}
	pos, err := r.readOffsets(ctx, p, a, b, width)
	if err != nil {
		return nil, err
	}
	n := int(b - a)
	child, err := r.readData(ctx, f.Children[0], dt.(arrow.ListLikeType).Elem(), batch,
		uint64(pos[0]), uint64(pos[n]), mem)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", f.Children[0].Name, err)
	}
	defer child.Release()
	return newData(dt, n, []*memory.Buffer{nil, offsetsBuf(mem, pos, large)},
		[]arrow.ArrayData{child}, 0, 0), nil
}
