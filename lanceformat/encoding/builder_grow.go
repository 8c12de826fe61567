package encoding

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reserve tells b to expect n more slots: fixed-width values, offsets and the slots of
// fixed-size-list and struct children get room for them at once, and variable-width data
// grows towards the size the slots seen so far predict, so decoding a batch of known
// length does not re-grow its buffers by doubling. List children are not reserved (their
// lengths are not known).
func (b *Builder) Reserve(n int) {
	if n <= 0 {
		return
	}
	b.reserved = b.n + n
	switch b.kind {
	case KindFixed:
		need := int(bitutil.BytesForBits(int64(b.n+n) * int64(b.bits)))
		b.fixed = slices.Grow(b.fixed, need-len(b.fixed))
	case KindVariable, KindList:
		b.growOffsets(n)
	case KindFSL:
		b.children[0].Reserve(n * b.dim)
	case KindStruct:
		for _, c := range b.children {
			c.Reserve(n)
		}
	}
}

// growData returns b.data with room for add more bytes, which belong to slots more
// slots. With a reservation it grows to the data size the average slot so far predicts
// for all reserved slots (plus 1/16), instead of doubling; after ReserveIn the new room
// is an Arrow buffer that Finish can hand over.
func (b *Builder) growData(add, slots int) []byte {
	need := len(b.data) + add
	if need <= cap(b.data) {
		return b.data
	}
	target := max(need, 2*cap(b.data))
	if filled := b.n + slots; b.reserved > filled && filled > 0 {
		est := int(int64(need) * int64(b.reserved) / int64(filled))
		target = max(need, est+est/16)
	}
	if b.mem == nil {
		nd := make([]byte, len(b.data), target)
		copy(nd, b.data)
		return nd
	}
	buf := newOutBuffer(b.mem, target) // bytes past len(b.data) are appended before use
	nd := buf.Bytes()[:len(b.data)]
	copy(nd, b.data)
	if b.dataBuf != nil {
		b.dataBuf.Release()
	}
	b.dataBuf = buf
	return nd
}

// ReserveIn is Reserve, except that fixed-width values (also those of fixed-size-list and
// struct children) are decoded straight into a buffer allocated from mem, which Finish
// then hands over without a copy if the values fit (it copies them otherwise). A builder
// that is not finished must be released with Release. Call it on an empty builder.
func (b *Builder) ReserveIn(mem memory.Allocator, n int) {
	if n <= 0 || b.n != 0 {
		b.Reserve(n)
		return
	}
	b.reserved = n
	switch b.kind {
	case KindFixed:
		size := int(bitutil.BytesForBits(int64(n) * int64(b.bits)))
		var buf *memory.Buffer
		if b.bits%8 == 0 { // whole bytes, only ever appended: no byte is read before it is written
			buf = newOutBuffer(mem, size)
		} else { // bits are set and cleared in place
			buf = memory.NewResizableBuffer(mem)
			buf.Resize(size)
		}
		b.arena, b.fixed = buf, buf.Bytes()[:0]
	case KindVariable:
		b.Reserve(n)
		b.mem = mem
	case KindFSL:
		b.children[0].ReserveIn(mem, n*b.dim)
	case KindStruct:
		for _, c := range b.children {
			c.ReserveIn(mem, n)
		}
	default:
		b.Reserve(n)
	}
}

// Release frees the buffers ReserveIn (and growth after it) allocated that Finish has not
// handed over. It is
// safe to call more than once and after Finish.
func (b *Builder) Release() {
	if b.pooledOffs {
		putOffsets(b.offsets)
		b.offsets, b.pooledOffs = nil, false
	}
	if b.arena != nil {
		b.arena.Release()
		b.arena = nil
	}
	if b.dataBuf != nil {
		b.dataBuf.Release()
		b.dataBuf = nil
	}
	for _, c := range b.children {
		c.Release()
	}
}

// fixedBuffer returns the Arrow buffer of the values of a KindFixed builder: the arena
// itself when the values still live in it, a copy otherwise.
func (b *Builder) fixedBuffer(mem memory.Allocator) *memory.Buffer {
	size := int(bitutil.BytesForBits(int64(b.n) * int64(b.bits)))
	a := b.arena
	b.arena = nil
	return handOver(a, b.fixed[:size], mem)
}

// dataBuffer returns the Arrow buffer of the bytes of a KindVariable builder: the buffer
// growData allocated when the bytes still live in it, a copy otherwise.
func (b *Builder) dataBuffer(mem memory.Allocator) *memory.Buffer {
	a := b.dataBuf
	b.dataBuf = nil
	return handOver(a, b.data, mem)
}

// handOver returns an Arrow buffer holding vals, taking over a (an Arrow buffer the
// builder owns, or nil). If vals starts a's allocation and fits in it (appends may have
// filled it past a.Len(), up to its capacity), a itself is returned, resized to vals.
// Otherwise vals is copied into a new buffer from mem, and only then is a released: vals
// may still point into a (it may be a's bytes grown past its capacity by append, or a
// view of them), and a released buffer may be reused, or poisoned, at once.
func handOver(a *memory.Buffer, vals []byte, mem memory.Allocator) *memory.Buffer {
	if a != nil && cap(vals) > 0 && len(vals) <= a.Cap() && unsafe.SliceData(vals) == unsafe.SliceData(a.Buf()) {
		a.ResizeNoShrink(len(vals))
		return a
	}
	out := toBuffer(mem, vals)
	if a != nil {
		a.Release()
	}
	return out
}

// growOffsets makes room for n more offsets, from the offsets pools when the size is
// pooled (Release gives the slice back).
func (b *Builder) growOffsets(n int) {
	if cap(b.offsets)-len(b.offsets) >= n {
		return
	}
	old, wasPooled := b.offsets, b.pooledOffs
	b.offsets, b.pooledOffs = getOffsets(b.offsets, n)
	if wasPooled {
		putOffsets(old)
	}
}
