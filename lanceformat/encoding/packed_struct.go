package encoding

import (
	"fmt"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Packed structs (field metadata "lance-encoding:packed", §4.3) store a struct of
// fixed-width children as one column: row i is the children's values of row i side by
// side, row-major. pylance 14 writes them in every version:
//
//	2.0:  PackedStruct{inner: [Nullable{no_nulls{Flat{bits_c, buf k}}}...], buffer: buf k}
//	2.1+: MiniBlock/FullZip value compression PackedStruct{bits_per_value: [bits_c...],
//	      values: Flat{sum of bits_c}} (possibly bit-packed or wrapped in General)
//	2.2:  FullZip value compression VariablePackedStruct{fields: [...]} when a child is a
//	      fixed-size list or variable-width
//
// Struct-level nulls come from the 2.1+ definition levels (2.0 cannot store them); the
// children themselves carry no validity (the writer stores their null slots' bytes).

// decodePackedStruct20 decodes n rows of a 2.0 PackedStruct into struct builder b.
func decodePackedStruct20(b *Builder, ps *enc20pb.PackedStruct, bufs [][]byte, n int) error {
	if b.Kind() != KindStruct || len(ps.GetInner()) != b.NumChildren() {
		return fmt.Errorf("packed struct of %d children for %s: %w", len(ps.GetInner()), b.Type(), ErrCorrupt)
	}
	bits := make([]int, len(ps.GetInner()))
	total := 0
	for i, in := range ps.GetInner() {
		bits[i] = packedBits20(in, 0)
		if bits[i] == 0 || bits[i] > 1<<16 {
			return NotSupported("2.0 packed struct child %d encoded as %s", i, encName(in))
		}
		total += bits[i]
	}
	buf := ps.GetBuffer()
	if buf.GetBufferType() != enc20pb.Buffer_page {
		return NotSupported("2.0 packed struct in %s buffers", buf.GetBufferType())
	}
	bi := int(buf.GetBufferIndex())
	if bi >= len(bufs) {
		return fmt.Errorf("packed struct buffer %d of %d: %w", bi, len(bufs), ErrCorrupt)
	}
	return appendPackedRows(b, bufs[bi], bits, total, n)
}

// packedStructInto decodes n rows of a 2.1+ PackedStruct compressive encoding into
// struct builder b.
func packedStructInto(b *Builder, ps *enc21pb.PackedStruct, bufs [][]byte, n int) error {
	if len(ps.GetBitsPerValue()) != b.NumChildren() {
		return fmt.Errorf("packed struct of %d children for %s: %w", len(ps.GetBitsPerValue()), b.Type(), ErrCorrupt)
	}
	bits := make([]int, len(ps.GetBitsPerValue()))
	total := 0
	for i, w := range ps.GetBitsPerValue() {
		if w == 0 || w > 1<<16 {
			return fmt.Errorf("packed struct child %d of %d bits: %w", i, w, ErrCorrupt)
		}
		bits[i] = int(w)
		total += bits[i]
	}
	raw, got, err := DecodeFixed(ps.GetValues(), bufs, n)
	if err != nil {
		return fmt.Errorf("packed struct values: %w", err)
	}
	if got != total {
		return fmt.Errorf("packed struct rows of %d bits, children need %d: %w", got, total, ErrCorrupt)
	}
	return appendPackedRows(b, raw, bits, total, n)
}

// appendPackedRows splits n row-major rows of total bits (children of bits[c] each) into
// the children of struct builder b and appends n valid struct slots.
func appendPackedRows(b *Builder, raw []byte, bits []int, total, n int) error {
	if total%8 != 0 {
		return NotSupported("packed struct rows of %d bits (not whole bytes)", total)
	}
	stride := total / 8
	if int64(n)*int64(stride) > int64(len(raw)) {
		return fmt.Errorf("packed struct: %d rows of %d bytes in %d bytes: %w", n, stride, len(raw), ErrCorrupt)
	}
	off := 0
	for c, w := range bits {
		if w%8 != 0 {
			return NotSupported("packed struct child %d of %d bits (not whole bytes)", c, w)
		}
		width := w / 8
		col := make([]byte, n*width)
		for i := range n {
			copy(col[i*width:(i+1)*width], raw[i*stride+off:i*stride+off+width])
		}
		if err := appendPackedChild(b.Child(c), col, w, n); err != nil {
			return fmt.Errorf("packed struct child %d: %w", c, err)
		}
		off += width
	}
	return b.AppendSlots(n, nil, 0)
}

// appendPackedChild appends n values of w bits each (col, packed LE) to child builder c: a
// fixed-width type, or a fixed-size list of one.
func appendPackedChild(c *Builder, col []byte, w, n int) error {
	switch c.Kind() {
	case KindFixed:
		if c.Bits() != w {
			return fmt.Errorf("%d-bit values for %s: %w", w, c.Type(), ErrCorrupt)
		}
		return c.AppendFixed(col, 0, n, nil)
	case KindFSL:
		if c.Child(0).Kind() != KindFixed || c.Child(0).Bits()*c.Dim() != w {
			return fmt.Errorf("%d-bit values for %s: %w", w, c.Type(), ErrCorrupt)
		}
		if err := c.Child(0).AppendFixed(col, 0, n*c.Dim(), nil); err != nil {
			return err
		}
		return c.AppendSlots(n, nil, 0)
	}
	return NotSupported("packed struct child of type %s", c.Type())
}

// packedStructValues decodes n struct values of a mini-block chunk or full-zip page into
// b: a PackedStruct, possibly inside General compression.
func packedStructValues(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, depth int) error {
	if depth > 8 || len(bufs) == 0 {
		return fmt.Errorf("packed struct values without buffers or nested too deeply: %w", ErrCorrupt)
	}
	switch e := enc.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_PackedStruct:
		return packedStructInto(b, e.PackedStruct, bufs, n)
	case *enc21pb.CompressiveEncoding_General:
		inner, err := decompressFirst(e.General, bufs)
		if err != nil {
			return err
		}
		return packedStructValues(b, e.General.GetValues(), inner, n, depth+1)
	case *enc21pb.CompressiveEncoding_VariablePackedStruct:
		return NotSupported("variable packed struct values")
	}
	return NotSupported("struct values encoded as %s", encName(enc))
}

// variablePackedStructInto decodes full-zip values of a 2.2 VariablePackedStruct into
// struct builder b: each value (raws[i], nil for a null struct) is its children's values
// back to back, a fixed-width child as bits_per_value/8 raw bytes, a variable-width one as
// a little-endian length of bits_per_length bits followed by that many bytes (compressed
// per value: FSST or General). pylance 14 writes it in 2.2 files for packed structs whose
// children are not all plain fixed-width (a fixed-size list, a string). Null structs get
// null children.
func variablePackedStructInto(b *Builder, vps *enc21pb.VariablePackedStruct, raws [][]byte) error {
	fields := vps.GetFields()
	var vd valueDecoder // caches the fields' FSST symbol tables
	if b.Kind() != KindStruct || len(fields) != b.NumChildren() {
		return fmt.Errorf("variable packed struct of %d children for %s: %w", len(fields), b.Type(), ErrCorrupt)
	}
	for _, raw := range raws {
		if raw == nil {
			for c := range fields {
				b.Child(c).AppendNulls(1)
			}
			if err := b.AppendSlots(1, nil, 0); err != nil {
				return err
			}
			continue
		}
		rest := raw
		for c, f := range fields {
			var err error
			if rest, err = vd.appendPackedField(b.Child(c), f, rest); err != nil {
				return fmt.Errorf("variable packed struct child %d: %w", c, err)
			}
		}
		if len(rest) != 0 {
			return fmt.Errorf("variable packed struct value has %d bytes left over: %w", len(rest), ErrCorrupt)
		}
		if err := b.AppendSlots(1, nil, 0); err != nil {
			return err
		}
	}
	return nil
}

// appendPackedField appends one child value read from the front of v to c and returns the
// bytes after it.
func (vd *valueDecoder) appendPackedField(c *Builder, f *enc21pb.VariablePackedStruct_FieldEncoding, v []byte) ([]byte, error) {
	switch l := f.GetLayout().(type) {
	case *enc21pb.VariablePackedStruct_FieldEncoding_BitsPerValue:
		if f.GetValue().GetFlat().GetData() != nil || (f.GetValue().GetFlat() == nil && f.GetValue().GetFixedSizeList() == nil) {
			return nil, NotSupported("variable packed struct field encoded as %s", encName(f.GetValue()))
		}
		w := l.BitsPerValue
		if w == 0 || w%8 != 0 || w/8 > uint64(len(v)) {
			return nil, fmt.Errorf("field of %d bits in %d bytes: %w", w, len(v), ErrCorrupt)
		}
		return v[w/8:], appendPackedChild(c, v[:w/8], int(w), 1)
	case *enc21pb.VariablePackedStruct_FieldEncoding_BitsPerLength:
		if c.Kind() != KindVariable {
			return nil, fmt.Errorf("length-prefixed field for %s: %w", c.Type(), ErrCorrupt)
		}
		lw := int(l.BitsPerLength / 8)
		if (lw != 4 && lw != 8) || len(v) < lw {
			return nil, fmt.Errorf("field length of %d bits in %d bytes: %w", l.BitsPerLength, len(v), ErrCorrupt)
		}
		n := readBits(v, 0, lw*8)
		if n > uint64(len(v)-lw) {
			return nil, fmt.Errorf("field of %d bytes in %d: %w", n, len(v)-lw, ErrCorrupt)
		}
		val, err := vd.perValue(f.GetValue(), v[lw:lw+int(n)], 0)
		if err != nil {
			return nil, err
		}
		return v[lw+int(n):], c.AppendValue(val, true)
	}
	return nil, fmt.Errorf("variable packed struct field without a layout: %w", ErrCorrupt)
}

// packedBits20 returns the bits one value of a 2.0 packed struct child takes: a Flat, or a
// FixedSizeList of one, inside Nullable no_nulls wrappers. It returns 0 for anything else.
func packedBits20(enc *enc20pb.ArrayEncoding, depth int) int {
	if depth > 8 {
		return 0
	}
	switch e := enc.GetArrayEncoding().(type) {
	case *enc20pb.ArrayEncoding_Flat:
		return int(e.Flat.GetBitsPerValue())
	case *enc20pb.ArrayEncoding_Nullable:
		if nn := e.Nullable.GetNoNulls(); nn != nil {
			return packedBits20(nn.GetValues(), depth+1)
		}
	case *enc20pb.ArrayEncoding_FixedSizeList:
		return int(e.FixedSizeList.GetDimension()) * packedBits20(e.FixedSizeList.GetItems(), depth+1)
	}
	return 0
}

// perValue undoes the per-value compression of one variable-width field value: plain
// Variable, FSST (the page's symbol table, in the encoding) or General (one frame).
func (vd *valueDecoder) perValue(enc *enc21pb.CompressiveEncoding, v []byte, depth int) ([]byte, error) {
	if depth > 4 {
		return nil, fmt.Errorf("field encoding nested too deeply: %w", ErrCorrupt)
	}
	switch e := enc.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_Variable:
		return v, nil
	case *enc21pb.CompressiveEncoding_Fsst:
		tab, err := vd.fsstTable(e.Fsst)
		if err != nil {
			return nil, err
		}
		inner, err := vd.perValue(e.Fsst.GetValues(), v, depth+1)
		if err != nil {
			return nil, err
		}
		return tab.Decompress(nil, inner)
	case *enc21pb.CompressiveEncoding_General:
		out, err := compress.Decompress(compress.Scheme(e.General.GetCompression().GetScheme()), v, maxChunkBytes)
		if err != nil {
			return nil, err
		}
		return vd.perValue(e.General.GetValues(), out, depth+1)
	}
	return nil, NotSupported("variable packed struct field encoded as %s", encName(enc))
}
