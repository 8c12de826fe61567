package encoding

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrCorrupt classifies decoded data that is inconsistent with itself (offsets out of
// range, counts that do not add up). Callers wrap it into their own corrupt-file errors.
var ErrCorrupt = errors.New("corrupt encoded data")

// ErrNotSupported classifies valid data this package cannot decode yet. Messages read
// "not supported yet: <what>".
var ErrNotSupported = errors.New("not supported yet")

// NotSupported returns an error wrapping ErrNotSupported that names what is missing.
func NotSupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotSupported, fmt.Sprintf(format, args...))
}

// Kind is the physical shape of an Arrow type as far as decoding is concerned.
type Kind int

// The kinds a Builder supports.
const (
	KindNull     Kind = iota // arrow.Null: a count only
	KindFixed                // fixed-width values (bits per value >= 1)
	KindVariable             // offsets + bytes (string, binary and their large forms)
	KindFSL                  // fixed-size list: one child with dim values per slot
	KindList                 // list / large list / map: offsets into one child
	KindStruct               // struct: one child per member
)

// Builder accumulates decoded values of one Arrow type, in row order, and produces an
// arrow.ArrayData. It is the sink every page decoder appends to. Builders hold plain Go
// memory; only Finish allocates from an Arrow allocator.
type Builder struct {
	typ      arrow.DataType
	kind     Kind
	n        int // number of slots
	valid    validity
	bits     int     // KindFixed: bits per value
	fixed    []byte  // KindFixed: packed values (a bitmap when bits == 1)
	offsets  []int64 // KindVariable, KindList: n+1 offsets
	data     []byte  // KindVariable: value bytes
	dim      int     // KindFSL
	children []*Builder
	dict     *arrow.DictionaryType // set for dictionary fields: typ is the value type
	reserved int                   // slots the caller expects in all (Reserve), 0 if unknown
	arena    *memory.Buffer        // KindFixed: the Arrow buffer fixed lives in (ReserveIn), or nil
	mem      memory.Allocator      // KindVariable after ReserveIn: where data grows
	dataBuf  *memory.Buffer        // KindVariable: the Arrow buffer data lives in, or nil
	// pooledOffs says offsets came from the offsets pools (Release returns it).
	pooledOffs bool
}

// FixedBits returns the bits per value of a fixed-width Arrow type, or 0 if t is not one.
func FixedBits(t arrow.DataType) int {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return 1
	case *arrow.FixedSizeBinaryType:
		return 8 * t.ByteWidth
	case arrow.FixedWidthDataType:
		return t.BitWidth()
	}
	return 0
}

// NewBuilder returns an empty Builder for t, or an error if t is not supported yet.
func NewBuilder(t arrow.DataType) (*Builder, error) {
	if dt, ok := t.(*arrow.DictionaryType); ok {
		return newDictBuilder(dt)
	}
	b := &Builder{typ: t}
	switch t.ID() {
	case arrow.NULL:
		b.kind = KindNull
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		b.kind = KindVariable
		b.offsets = []int64{0}
	case arrow.FIXED_SIZE_LIST:
		ft := t.(*arrow.FixedSizeListType)
		b.kind, b.dim = KindFSL, int(ft.Len())
		if b.dim <= 0 {
			return nil, fmt.Errorf("fixed_size_list with dimension %d: %w", b.dim, ErrCorrupt)
		}
		return b, b.addChildren(ft.Elem())
	case arrow.LIST, arrow.LARGE_LIST, arrow.MAP: // a map's child is its entries struct
		b.kind = KindList
		b.offsets = []int64{0}
		return b, b.addChildren(t.(arrow.ListLikeType).Elem())
	case arrow.STRUCT:
		b.kind = KindStruct
		st := t.(*arrow.StructType)
		for _, f := range st.Fields() {
			if err := b.addChildren(f.Type); err != nil {
				return nil, err
			}
		}
	default:
		b.kind, b.bits = KindFixed, FixedBits(t)
		if b.bits == 0 {
			return nil, NotSupported("arrow type %s", t)
		}
	}
	return b, nil
}

func (b *Builder) addChildren(ts ...arrow.DataType) error {
	for _, t := range ts {
		c, err := NewBuilder(t)
		if err != nil {
			return err
		}
		b.children = append(b.children, c)
	}
	return nil
}

// Type is the Arrow type being built.
func (b *Builder) Type() arrow.DataType {
	if b.dict != nil {
		return b.dict
	}
	return b.typ
}

// Kind is the physical shape of the type.
func (b *Builder) Kind() Kind { return b.kind }

// Len is the number of slots appended so far.
func (b *Builder) Len() int { return b.n }

// Bits is the bits per value of a KindFixed builder.
func (b *Builder) Bits() int { return b.bits }

// Dim is the list size of a KindFSL builder.
func (b *Builder) Dim() int { return b.dim }

// Child returns child i (the item of a list or FSL, member i of a struct).
func (b *Builder) Child(i int) *Builder { return b.children[i] }

// NumChildren is the number of child builders.
func (b *Builder) NumChildren() int { return len(b.children) }

// AppendNulls appends n null slots. Nested children get matching placeholder slots (FSL and
// struct children get null slots; lists get empty lists).
func (b *Builder) AppendNulls(n int) { b.appendPlaceholders(n, false) }

// AppendEmpty appends n valid slots holding zero values, empty strings or empty lists.
func (b *Builder) AppendEmpty(n int) { b.appendPlaceholders(n, true) }

func (b *Builder) appendPlaceholders(n int, valid bool) {
	if n <= 0 {
		return
	}
	if b.kind != KindNull {
		b.valid.appendN(valid, n)
	}
	switch b.kind {
	case KindFixed:
		b.growFixed(n)
	case KindVariable, KindList:
		last := b.offsets[len(b.offsets)-1]
		for range n {
			b.offsets = append(b.offsets, last)
		}
	case KindFSL:
		b.children[0].appendPlaceholders(n*b.dim, valid)
	case KindStruct:
		for _, c := range b.children {
			c.appendPlaceholders(n, valid)
		}
	}
	b.n += n
}

func (b *Builder) growFixed(n int) {
	need := int(bitutil.BytesForBits(int64(b.n+n) * int64(b.bits)))
	if need > len(b.fixed) {
		b.fixed = append(b.fixed, make([]byte, need-len(b.fixed))...)
	}
}

// AppendFixed appends values [lo, hi) of raw, a packed buffer of b.Bits()-bit values (a
// bitmap when bits is 1), with validity bits [lo, hi) of valid (nil: all valid).
func (b *Builder) AppendFixed(raw []byte, lo, hi int, valid []byte) error {
	if b.kind != KindFixed {
		return fmt.Errorf("append fixed-width values to %s: %w", b.typ, ErrCorrupt)
	}
	if lo < 0 || hi < lo || int64(hi)*int64(b.bits) > int64(len(raw))*8 {
		return fmt.Errorf("fixed-width values [%d,%d) of %d bits out of a %d-byte buffer: %w",
			lo, hi, b.bits, len(raw), ErrCorrupt)
	}
	if valid != nil && int64(hi) > int64(len(valid))*8 {
		return fmt.Errorf("validity [%d,%d) out of a %d-byte bitmap: %w", lo, hi, len(valid), ErrCorrupt)
	}
	n := hi - lo
	if b.bits%8 == 0 {
		w := b.bits / 8
		b.fixed = append(b.fixed, raw[lo*w:hi*w]...)
	} else {
		start := b.n
		b.growFixed(n)
		copyBits(b.fixed, start*b.bits, raw, lo*b.bits, n*b.bits)
	}
	b.valid.appendBitmap(valid, lo, n)
	b.n += n
	return nil
}

// copyBits copies n bits from src at bit srcOff to dst at bit dstOff.
func copyBits(dst []byte, dstOff int, src []byte, srcOff, n int) {
	for i := range n {
		if bitutil.BitIsSet(src, srcOff+i) {
			bitutil.SetBit(dst, dstOff+i)
		} else {
			bitutil.ClearBit(dst, dstOff+i)
		}
	}
}

// AppendVariable appends values [lo, hi) where value i is data[offsets[i]:offsets[i+1]],
// with validity bits [lo, hi) of valid (nil: all valid). Null values should have empty
// ranges; non-empty null ranges are kept as is.
func (b *Builder) AppendVariable(offsets []uint64, data []byte, lo, hi int, valid []byte) error {
	if b.kind != KindVariable {
		return fmt.Errorf("append variable-width values to %s: %w", b.typ, ErrCorrupt)
	}
	if lo < 0 || hi < lo || hi >= len(offsets) {
		return fmt.Errorf("variable-width values [%d,%d) with %d offsets: %w", lo, hi, len(offsets), ErrCorrupt)
	}
	if valid != nil && int64(hi) > int64(len(valid))*8 {
		return fmt.Errorf("validity [%d,%d) out of a %d-byte bitmap: %w", lo, hi, len(valid), ErrCorrupt)
	}
	first, last := offsets[lo], offsets[hi]
	if first > last || last > uint64(len(data)) {
		return fmt.Errorf("values [%d,%d) span [%d,%d) of %d bytes: %w", lo, hi, first, last, len(data), ErrCorrupt)
	}
	base, n0 := int64(len(b.data))-int64(first), len(b.offsets)
	b.offsets = slices.Grow(b.offsets, hi-lo)[:n0+hi-lo]
	if !rebaseEnds(b.offsets[n0:], offsets[lo:hi+1], base) {
		b.offsets = b.offsets[:n0]
		for i := lo; i < hi; i++ {
			if offsets[i] > offsets[i+1] {
				return fmt.Errorf("value %d spans [%d,%d): %w", i, offsets[i], offsets[i+1], ErrCorrupt)
			}
		}
	}
	b.data = append(b.growData(int(last-first), hi-lo), data[first:last]...)
	b.valid.appendBitmap(valid, lo, hi-lo)
	b.n += hi - lo
	return nil
}

// rebaseEnds sets dst[i] = base + src[i+1] (src has one more value than dst) and reports
// whether src never decreases. It is a function of its own so that its loop keeps
// everything in registers.
func rebaseEnds(dst []int64, src []uint64, base int64) bool {
	src = src[:len(dst)+1]
	var borrow uint64
	for i, o := range src[1:] {
		_, b := bits.Sub64(o, src[i], 0) // 1 when o < src[i]
		borrow |= b
		dst[i] = base + int64(o)
	}
	return borrow == 0
}

// AppendValue appends one variable-width value.
func (b *Builder) AppendValue(v []byte, valid bool) error {
	if b.kind != KindVariable {
		return fmt.Errorf("append a variable-width value to %s: %w", b.typ, ErrCorrupt)
	}
	b.data = append(b.data, v...)
	b.offsets = append(b.offsets, int64(len(b.data)))
	b.valid.appendN(valid, 1)
	b.n++
	return nil
}

// AppendSlots appends n slots to a nested builder (FSL, struct) with validity bits [lo, lo+n)
// of valid (nil: all valid). The caller appends the children's values separately.
func (b *Builder) AppendSlots(n int, valid []byte, lo int) error {
	if b.kind != KindFSL && b.kind != KindStruct {
		return fmt.Errorf("append nested slots to %s: %w", b.typ, ErrCorrupt)
	}
	if valid != nil && int64(lo+n) > int64(len(valid))*8 {
		return fmt.Errorf("validity [%d,%d) out of a %d-byte bitmap: %w", lo, lo+n, len(valid), ErrCorrupt)
	}
	b.valid.appendBitmap(valid, lo, n)
	b.n += n
	return nil
}

// AppendSlot appends one slot with the given validity to a nested builder. For a list it
// starts a new, empty list; items appended to the child afterwards belong to it.
func (b *Builder) AppendSlot(valid bool) error {
	switch b.kind {
	case KindList:
		// The new list starts (and, until items arrive, ends) where the last one ended.
		b.offsets = append(b.offsets, b.offsets[len(b.offsets)-1])
	case KindStruct:
	default:
		return fmt.Errorf("append a nested slot to %s: %w", b.typ, ErrCorrupt)
	}
	b.valid.appendN(valid, 1)
	b.n++
	return nil
}

// AppendListEnds appends lists whose ends (in the child, after this call's items are
// appended) are given relative to the child's current length: list i spans
// [prev end, base+ends[i]). valid gives validity per list (nil: all valid).
func (b *Builder) AppendListEnds(base int64, ends []int64, valid []bool) error {
	if b.kind != KindList {
		return fmt.Errorf("append lists to %s: %w", b.typ, ErrCorrupt)
	}
	for i, e := range ends {
		b.offsets = append(b.offsets, base+e)
		if valid == nil {
			b.valid.appendN(true, 1)
		} else {
			b.valid.appendN(valid[i], 1)
		}
	}
	b.n += len(ends)
	return nil
}

// ChildLen returns the number of child slots of a list builder (its last offset).
func (b *Builder) ChildLen() int64 { return b.offsets[len(b.offsets)-1] }

// IsValid reports whether slot i is valid.
func (b *Builder) IsValid(i int) bool { return b.valid.isValid(i) }

// checkLens verifies the builder's buffers agree with its slot count.
func (b *Builder) checkLens() error {
	if b.kind != KindNull && b.valid.n != b.n {
		return fmt.Errorf("%s: %d validity bits for %d slots: %w", b.typ, b.valid.n, b.n, ErrCorrupt)
	}
	switch b.kind {
	case KindFSL:
		if b.children[0].n != b.n*b.dim {
			return fmt.Errorf("%s: %d items for %d lists: %w", b.typ, b.children[0].n, b.n, ErrCorrupt)
		}
	case KindStruct:
		for _, c := range b.children {
			if c.n != b.n {
				return fmt.Errorf("%s: member with %d slots, struct has %d: %w", b.typ, c.n, b.n, ErrCorrupt)
			}
		}
	case KindList:
		if b.ChildLen() != int64(b.children[0].n) {
			return fmt.Errorf("%s: offsets end at %d, %d items: %w", b.typ, b.ChildLen(), b.children[0].n, ErrCorrupt)
		}
		if b.typ.ID() == arrow.MAP {
			return b.checkMapEntries()
		}
	}
	return nil
}

// checkMapEntries verifies what Arrow requires of a map's entries (and would panic on):
// no null entries and no null keys.
func (b *Builder) checkMapEntries() error {
	e := b.children[0]
	if e.kind != KindStruct || len(e.children) != 2 {
		return fmt.Errorf("%s: entries of type %s: %w", b.typ, e.typ, ErrCorrupt)
	}
	if e.valid.nulls > 0 || e.children[0].valid.nulls > 0 {
		return fmt.Errorf("%s: %d null entries, %d null keys: %w", b.typ, e.valid.nulls,
			e.children[0].valid.nulls, ErrCorrupt)
	}
	return nil
}

// Finish builds the array data from everything appended and resets nothing: a Builder is
// used once. The caller must Release the result.
func (b *Builder) Finish(mem memory.Allocator) (arrow.ArrayData, error) {
	if b.dict != nil {
		return b.finishDict(mem)
	}
	return b.finishDense(mem)
}

// finishDense builds the array data of b's (non-dictionary) type.
func (b *Builder) finishDense(mem memory.Allocator) (arrow.ArrayData, error) {
	if err := b.checkLens(); err != nil {
		return nil, err
	}
	var children []arrow.ArrayData
	defer func() {
		for _, c := range children {
			c.Release()
		}
	}()
	for _, c := range b.children {
		cd, err := c.Finish(mem)
		if err != nil {
			return nil, err
		}
		children = append(children, cd)
	}
	if b.kind == KindNull {
		return array.NewData(b.typ, b.n, []*memory.Buffer{nil}, nil, b.n, 0), nil
	}
	bufs := []*memory.Buffer{nil}
	if b.valid.nulls > 0 {
		bufs[0] = toBuffer(mem, b.valid.bits[:bitutil.BytesForBits(int64(b.n))])
	}
	switch b.kind {
	case KindFixed:
		bufs = append(bufs, b.fixedBuffer(mem))
	case KindVariable, KindList:
		ob, err := offsetsBuffer(mem, b.offsets, b.typ.ID() == arrow.LARGE_STRING ||
			b.typ.ID() == arrow.LARGE_BINARY || b.typ.ID() == arrow.LARGE_LIST)
		if err != nil {
			releaseAll(bufs)
			return nil, fmt.Errorf("%s: %w", b.typ, err)
		}
		bufs = append(bufs, ob)
		if b.kind == KindVariable {
			bufs = append(bufs, b.dataBuffer(mem))
		}
	}
	d := array.NewData(b.typ, b.n, bufs, children, b.valid.nulls, 0)
	releaseAll(bufs)
	return d, nil
}

// FinishArray is Finish followed by array.MakeFromData. The caller must Release the result.
func (b *Builder) FinishArray(mem memory.Allocator) (arrow.Array, error) {
	d, err := b.Finish(mem)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

func releaseAll(bufs []*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

func toBuffer(mem memory.Allocator, src []byte) *memory.Buffer {
	buf := newOutBuffer(mem, len(src))
	copy(buf.Bytes(), src)
	return buf
}

func offsetsBuffer(mem memory.Allocator, offs []int64, large bool) (*memory.Buffer, error) {
	if large {
		buf := newOutBuffer(mem, 8*len(offs))
		copy(arrow.Int64Traits.CastFromBytes(buf.Bytes()), offs)
		return buf, nil
	}
	buf := newOutBuffer(mem, 4*len(offs))
	if !narrowOffsets(arrow.Int32Traits.CastFromBytes(buf.Bytes())[:len(offs)], offs) {
		buf.Release()
		i := slices.IndexFunc(offs, func(o int64) bool { return o < 0 || o > math.MaxInt32 })
		return nil, fmt.Errorf("offset %d (%d) out of the 32-bit offsets' range: %w", i, offs[i], ErrCorrupt)
	}
	return buf, nil
}

// narrowOffsets sets out[i] = int32(offs[i]) and reports whether every offset was in
// [0, MaxInt32]. It ORs the values instead of taking their maximum, four at a time, so
// the loop carries no compare-and-select chain.
func narrowOffsets(out []int32, offs []int64) bool {
	out = out[:len(offs)]
	var acc0, acc1 uint64
	i := 0
	for ; i+4 <= len(offs); i += 4 {
		o := (*[4]int64)(offs[i : i+4])
		d := (*[4]int32)(out[i : i+4])
		acc0 |= uint64(o[0]) | uint64(o[1])
		acc1 |= uint64(o[2]) | uint64(o[3])
		d[0], d[1], d[2], d[3] = int32(o[0]), int32(o[1]), int32(o[2]), int32(o[3])
	}
	for ; i < len(offs); i++ {
		acc0 |= uint64(offs[i])
		out[i] = int32(offs[i])
	}
	return (acc0|acc1)>>31 == 0
}
