package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// AppendFrom appends slots [lo, hi) of src, which must have been built for the same type.
// Page decoders decode a whole page into a scratch Builder and copy the rows asked for.
func (b *Builder) AppendFrom(src *Builder, lo, hi int) error {
	if b.kind != src.kind || len(b.children) != len(src.children) {
		return fmt.Errorf("copy %s into %s: %w", src.typ, b.typ, ErrCorrupt)
	}
	if lo < 0 || hi < lo || hi > src.n {
		return fmt.Errorf("copy slots [%d,%d) of %d: %w", lo, hi, src.n, ErrCorrupt)
	}
	n := hi - lo
	if b.kind != KindNull {
		b.valid.appendBitmap(src.valid.bits, lo, n)
	}
	switch b.kind {
	case KindFixed:
		if b.bits != src.bits {
			return fmt.Errorf("copy %d-bit values into %d-bit builder: %w", src.bits, b.bits, ErrCorrupt)
		}
		if b.bits%8 == 0 {
			w := b.bits / 8
			b.fixed = append(b.fixed, src.fixed[lo*w:hi*w]...)
		} else {
			start := b.n
			b.growFixed(n)
			copyBits(b.fixed, start*b.bits, src.fixed, lo*b.bits, n*b.bits)
		}
	case KindVariable:
		for i := lo; i < hi; i++ {
			b.data = append(b.data, src.data[src.offsets[i]:src.offsets[i+1]]...)
			b.offsets = append(b.offsets, int64(len(b.data)))
		}
	case KindFSL:
		if b.dim != src.dim {
			return fmt.Errorf("copy fsl of %d into fsl of %d: %w", src.dim, b.dim, ErrCorrupt)
		}
		if err := b.children[0].AppendFrom(src.children[0], lo*b.dim, hi*b.dim); err != nil {
			return err
		}
	case KindList:
		base := b.children[0].n
		cs, ce := src.offsets[lo], src.offsets[hi]
		for i := lo; i < hi; i++ {
			b.offsets = append(b.offsets, int64(base)+src.offsets[i+1]-cs)
		}
		if err := b.children[0].AppendFrom(src.children[0], int(cs), int(ce)); err != nil {
			return err
		}
	case KindStruct:
		for i, c := range b.children {
			if err := c.AppendFrom(src.children[i], lo, hi); err != nil {
				return err
			}
		}
	}
	b.n += n
	return nil
}

// AppendFromValidity is AppendFrom with the copied slots' validity replaced by valid
// (one entry per slot; nil: keep src's validity).
func (b *Builder) AppendFromValidity(src *Builder, lo, hi int, valid []bool) error {
	if valid == nil {
		return b.AppendFrom(src, lo, hi)
	}
	if len(valid) != hi-lo {
		return fmt.Errorf("%d validity entries for %d slots: %w", len(valid), hi-lo, ErrCorrupt)
	}
	start := b.n
	if err := b.AppendFrom(src, lo, hi); err != nil {
		return err
	}
	for i, v := range valid {
		if !v && b.valid.isValid(start+i) {
			b.valid.materialize()
			bitutil.ClearBit(b.valid.bits, start+i)
			b.valid.nulls++
		}
	}
	return nil
}

// SetLastListEnd sets the end of the last list of a list builder.
func (b *Builder) SetLastListEnd(end int64) {
	b.offsets[len(b.offsets)-1] = end
}
