package encoding

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// newDictBuilder returns a builder for an Arrow dictionary field. It accumulates the
// materialized values; Finish re-encodes them as a dictionary (first-seen order). Any
// variable-width or byte-aligned fixed-width value type works: the encoding is done here,
// not by arrow-go's dictionary builder (which has no large_string or large_binary support).
func newDictBuilder(dt *arrow.DictionaryType) (*Builder, error) {
	if !arrow.IsInteger(dt.IndexType.ID()) {
		return nil, fmt.Errorf("dictionary index type %s: %w", dt.IndexType, ErrCorrupt)
	}
	b, err := NewBuilder(dt.ValueType)
	if err != nil {
		return nil, err
	}
	if b.kind != KindVariable && (b.kind != KindFixed || b.bits%8 != 0) {
		return nil, NotSupported("dictionary of %s", dt.ValueType)
	}
	b.dict = dt
	return b, nil
}

// IsDictionary reports whether b builds an Arrow dictionary field.
func (b *Builder) IsDictionary() bool { return b.dict != nil }

// finishDict dictionary-encodes the accumulated values: the distinct values of the valid
// slots in first-seen order become the dictionary, each slot an index into it (null slots
// index 0). It fails if the distinct values do not fit the index type.
func (b *Builder) finishDict(mem memory.Allocator) (arrow.ArrayData, error) {
	if b.valid.n != b.n {
		return nil, fmt.Errorf("%s: %d validity bits for %d slots: %w", b.dict, b.valid.n, b.n, ErrCorrupt)
	}
	idxBits := b.dict.IndexType.(arrow.FixedWidthDataType).BitWidth()
	limit := maxDictIndex(b.dict.IndexType)
	vals, err := NewBuilder(b.dict.ValueType)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	idx := make([]uint64, b.n)
	seen := make(map[string]uint64)
	for i := range b.n {
		if !b.valid.isValid(i) {
			continue
		}
		v := b.slotBytes(i)
		k, ok := seen[string(v)]
		if !ok {
			k = uint64(vals.Len())
			if k > limit {
				return nil, fmt.Errorf("%s: more than %d distinct values: %w", b.dict, limit+1, ErrCorrupt)
			}
			seen[string(v)] = k
			if err := vals.appendRawValue(v); err != nil {
				return nil, err
			}
		}
		idx[i] = k
	}
	dictData, err := vals.finishDense(mem)
	if err != nil {
		return nil, err
	}
	defer dictData.Release()
	bufs := []*memory.Buffer{nil, indexBuffer(mem, idx, idxBits/8)}
	if b.valid.nulls > 0 {
		bufs[0] = toBuffer(mem, b.valid.bits[:(b.n+7)/8])
	}
	d := array.NewDataWithDictionary(b.dict, b.n, bufs, b.valid.nulls, 0, dictData.(*array.Data))
	releaseAll(bufs)
	return d, nil
}

// slotBytes returns the bytes of value i of a KindVariable or byte-aligned KindFixed builder.
func (b *Builder) slotBytes(i int) []byte {
	if b.kind == KindVariable {
		return b.data[b.offsets[i]:b.offsets[i+1]]
	}
	w := b.bits / 8
	return b.fixed[i*w : (i+1)*w]
}

// appendRawValue appends one valid value given as its bytes (see slotBytes).
func (b *Builder) appendRawValue(v []byte) error {
	if b.kind == KindVariable {
		return b.AppendValue(v, true)
	}
	return b.AppendFixed(v, 0, 1, nil)
}

// maxDictIndex is the largest index the integer type t can hold (capped at MaxInt64).
func maxDictIndex(t arrow.DataType) uint64 {
	bits := t.(arrow.FixedWidthDataType).BitWidth()
	if bits >= 64 {
		return math.MaxInt64
	}
	if arrow.IsUnsignedInteger(t.ID()) {
		return 1<<bits - 1
	}
	return 1<<(bits-1) - 1
}

// indexBuffer packs idx as little-endian integers of w bytes.
func indexBuffer(mem memory.Allocator, idx []uint64, w int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(idx) * w)
	out := buf.Bytes()
	for i, k := range idx {
		switch w {
		case 1:
			out[i] = byte(k)
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(k))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(k))
		default:
			binary.LittleEndian.PutUint64(out[8*i:], k)
		}
	}
	return buf
}
