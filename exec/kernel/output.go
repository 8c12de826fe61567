package kernel

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Fixed is an output array of a fixed-width type being filled in place. Values starts
// zeroed and every row valid; SetNull marks a row NULL.
type Fixed[T arrow.FixedWidthType] struct {
	Values []T
	dt     arrow.DataType
	v      validity
	vals   *memory.Buffer
}

// NewFixed allocates an output array of n rows of type dt, whose values have Go type T
// (the physical type of dt, e.g. int32 for date32).
func NewFixed[T arrow.FixedWidthType](mem memory.Allocator, dt arrow.DataType, n int) *Fixed[T] {
	var zero T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	vals := arrow.GetData[T](buf.Bytes())[:n]
	clear(vals)
	return &Fixed[T]{Values: vals, dt: dt, vals: buf, v: validity{mem: mem, n: n}}
}

// SetNull marks row i NULL.
func (f *Fixed[T]) SetNull(i int) { f.v.setNull(i) }

// Finish returns the array; f must not be used afterwards.
func (f *Fixed[T]) Finish() arrow.Array { return f.v.finish(f.dt, f.vals) }

// Release frees the buffers of an unfinished array.
func (f *Fixed[T]) Release() {
	f.vals.Release()
	f.v.release()
}

// Bools is a boolean output array being filled in place; every row starts false and valid.
type Bools struct {
	v    validity
	vals *memory.Buffer
}

// NewBools allocates a boolean output array of n rows.
func NewBools(mem memory.Allocator, n int) *Bools {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(buf.Bytes())
	return &Bools{vals: buf, v: validity{mem: mem, n: n}}
}

// Set sets row i to v.
func (b *Bools) Set(i int, v bool) { bitutil.SetBitTo(b.vals.Bytes(), i, v) }

// SetNull marks row i NULL.
func (b *Bools) SetNull(i int) { b.v.setNull(i) }

// Finish returns the array; b must not be used afterwards.
func (b *Bools) Finish() arrow.Array { return b.v.finish(arrow.FixedWidthTypes.Boolean, b.vals) }

// Release frees the buffers of an unfinished array.
func (b *Bools) Release() {
	b.vals.Release()
	b.v.release()
}

// validity is a lazily allocated validity bitmap.
type validity struct {
	mem   memory.Allocator
	n     int
	bits  *memory.Buffer
	nnull int
}

func (v *validity) setNull(i int) {
	if v.bits == nil {
		v.bits = memory.NewResizableBuffer(v.mem)
		v.bits.Resize(int(bitutil.BytesForBits(int64(v.n))))
		bitutil.SetBitsTo(v.bits.Bytes(), 0, int64(v.n), true)
	}
	if bitutil.BitIsSet(v.bits.Bytes(), i) {
		bitutil.ClearBit(v.bits.Bytes(), i)
		v.nnull++
	}
}

func (v *validity) release() {
	if v.bits != nil {
		v.bits.Release()
		v.bits = nil
	}
}

func (v *validity) finish(dt arrow.DataType, vals *memory.Buffer) arrow.Array {
	data := array.NewData(dt, v.n, []*memory.Buffer{v.bits, vals}, nil, v.nnull, 0)
	vals.Release()
	v.release()
	defer data.Release()
	return array.MakeFromData(data)
}

// IsValid reports whether row i of arr is not NULL. Unlike arr.IsValid it is also right for
// arrays of type NULL, which have no validity bitmap.
func IsValid(arr arrow.Array, i int) bool {
	switch arr.NullN() {
	case 0:
		return true
	case arr.Len():
		return false
	}
	return arr.IsValid(i)
}
