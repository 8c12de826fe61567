package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
)

// maxPageRows caps the rows (and items) one page may claim, so hostile lengths cannot force
// huge allocations: all-null and constant pages are materialized with no bytes behind them.
// Real writers stay far below it (2.0 caps pages at 32 MiB, 2.1+ flushes ~8 MiB, and
// pylance writes at most 1 Mi rows per file by default).
const maxPageRows = 1 << 26

// Decode20 decodes one 2.0 page (§5.5) of n rows encoded as enc over the page's buffers and
// appends it to b.
func Decode20(b *Builder, enc *enc20pb.ArrayEncoding, bufs [][]byte, n uint64) error {
	if n > maxPageRows {
		return fmt.Errorf("page of %d rows: %w", n, ErrCorrupt)
	}
	return decode20(b, enc, bufs, int(n), 0)
}

func decode20(b *Builder, enc *enc20pb.ArrayEncoding, bufs [][]byte, n, depth int) error {
	if depth > 16 {
		return fmt.Errorf("encoding nested too deeply: %w", ErrCorrupt)
	}
	switch e := enc.GetArrayEncoding().(type) {
	case *enc20pb.ArrayEncoding_Nullable:
		return decodeNullable20(b, e.Nullable, bufs, n, depth)
	case *enc20pb.ArrayEncoding_Flat:
		raw, err := flatBuffer20(e.Flat, bufs, n)
		if err != nil {
			return err
		}
		if int(e.Flat.GetBitsPerValue()) != b.Bits() || b.Kind() != KindFixed {
			return fmt.Errorf("flat of %d bits for %s: %w", e.Flat.GetBitsPerValue(), b.Type(), ErrCorrupt)
		}
		return b.AppendFixed(raw, 0, n, nil)
	case *enc20pb.ArrayEncoding_FixedSizeList:
		fsl := e.FixedSizeList
		if b.Kind() != KindFSL || int(fsl.GetDimension()) != b.Dim() {
			return fmt.Errorf("fixed_size_list of %d for %s: %w", fsl.GetDimension(), b.Type(), ErrCorrupt)
		}
		if uint64(n)*uint64(b.Dim()) > maxPageRows {
			return fmt.Errorf("fixed_size_list of %d x %d items: %w", n, b.Dim(), ErrCorrupt)
		}
		if err := decode20(b.Child(0), fsl.GetItems(), bufs, n*b.Dim(), depth+1); err != nil {
			return err
		}
		return b.AppendSlots(n, nil, 0)
	case *enc20pb.ArrayEncoding_Binary:
		return decodeBinary20(b, e.Binary, bufs, n, depth)
	case *enc20pb.ArrayEncoding_Dictionary:
		return decodeDictionary20(b, e.Dictionary, bufs, n, depth)
	case nil:
		return fmt.Errorf("missing array encoding: %w", ErrCorrupt)
	default: // Fsst, PackedStruct, the bit-packings, Constant, ... (decode20_more.go)
		return decode20More(b, enc, bufs, n, depth)
	}
}

func decodeNullable20(b *Builder, nl *enc20pb.Nullable, bufs [][]byte, n, depth int) error {
	switch v := nl.GetNullability().(type) {
	case *enc20pb.Nullable_NoNulls:
		return decode20(b, v.NoNulls.GetValues(), bufs, n, depth+1)
	case *enc20pb.Nullable_AllNulls:
		b.AppendNulls(n)
		return nil
	case *enc20pb.Nullable_SomeNulls:
		valid, err := validity20(v.SomeNulls.GetValidity(), bufs, n)
		if err != nil {
			return err
		}
		tmp, err := NewBuilder(b.Type())
		if err != nil {
			return err
		}
		if err := decode20(tmp, v.SomeNulls.GetValues(), bufs, n, depth+1); err != nil {
			return err
		}
		if tmp.Len() != n {
			return fmt.Errorf("nullable values decoded %d of %d rows: %w", tmp.Len(), n, ErrCorrupt)
		}
		tmp.AndValidity(valid)
		return b.AppendFrom(tmp, 0, n)
	}
	return fmt.Errorf("nullable without nullability: %w", ErrCorrupt)
}

// validity20 decodes a validity bitmap (a Flat of 1 bit) of n rows.
func validity20(enc *enc20pb.ArrayEncoding, bufs [][]byte, n int) ([]byte, error) {
	f := enc.GetFlat()
	if f == nil || f.GetBitsPerValue() != 1 {
		return nil, NotSupported("2.0 validity encoding %s", encName(enc))
	}
	return flatBuffer20(f, bufs, n)
}

// flatBuffer20 returns the (decompressed) buffer of a Flat encoding holding n values.
func flatBuffer20(f *enc20pb.Flat, bufs [][]byte, n int) ([]byte, error) {
	buf := f.GetBuffer()
	if buf.GetBufferType() != enc20pb.Buffer_page {
		return nil, NotSupported("2.0 %s buffers", buf.GetBufferType())
	}
	i := int(buf.GetBufferIndex())
	if i >= len(bufs) {
		return nil, fmt.Errorf("flat buffer %d of %d: %w", i, len(bufs), ErrCorrupt)
	}
	raw := bufs[i]
	bits := f.GetBitsPerValue()
	if bits == 0 || bits > 1<<20 {
		return nil, fmt.Errorf("flat of %d bits: %w", bits, ErrCorrupt)
	}
	if c := f.GetCompression(); c != nil && c.GetScheme() != "" {
		scheme, err := scheme20(c.GetScheme())
		if err != nil {
			return nil, err
		}
		limit := bitutil.BytesForBits(int64(n) * int64(bits))
		if raw, err = compress.Decompress(scheme, raw, int(limit)); err != nil {
			return nil, fmt.Errorf("flat buffer %d: %w", i, err)
		}
	}
	if need := bitutil.BytesForBits(int64(n) * int64(bits)); int64(len(raw)) < need {
		return nil, fmt.Errorf("flat buffer %d has %d bytes, %d values of %d bits need %d: %w",
			i, len(raw), n, bits, need, ErrCorrupt)
	}
	return raw, nil
}

func scheme20(s string) (compress.Scheme, error) {
	switch s {
	case "zstd":
		return compress.SchemeZstd, nil
	case "lz4":
		return compress.SchemeLZ4, nil
	}
	return 0, NotSupported("2.0 compression scheme %q", s)
}

// DecodeUints20 decodes n unsigned integers of any width (8..64 bits) into uint64s. Nulls,
// if the encoding has any, decode as 0.
func DecodeUints20(enc *enc20pb.ArrayEncoding, bufs [][]byte, n uint64) ([]uint64, error) {
	if n > maxPageRows {
		return nil, fmt.Errorf("page of %d rows: %w", n, ErrCorrupt)
	}
	bits := flatBits20(enc)
	t, ok := uintTypes[bits]
	if !ok {
		return nil, NotSupported("2.0 integer encoding %s of %d bits", encName(enc), bits)
	}
	tmp, err := NewBuilder(t)
	if err != nil {
		return nil, err
	}
	if err := decode20(tmp, enc, bufs, int(n), 0); err != nil {
		return nil, err
	}
	return tmp.Uints(), nil
}

// flatBits20 finds the bit width of the Flat inside Nullable wrappers, or 0.
func flatBits20(enc *enc20pb.ArrayEncoding) int {
	for range 8 {
		switch e := enc.GetArrayEncoding().(type) {
		case *enc20pb.ArrayEncoding_Flat:
			return int(e.Flat.GetBitsPerValue())
		case *enc20pb.ArrayEncoding_Nullable:
			if nn := e.Nullable.GetNoNulls(); nn != nil {
				enc = nn.GetValues()
			} else if sn := e.Nullable.GetSomeNulls(); sn != nil {
				enc = sn.GetValues()
			} else {
				return 0
			}
		default:
			return 0
		}
	}
	return 0
}

var uintTypes = map[int]arrow.DataType{
	8: arrow.PrimitiveTypes.Uint8, 16: arrow.PrimitiveTypes.Uint16,
	32: arrow.PrimitiveTypes.Uint32, 64: arrow.PrimitiveTypes.Uint64,
}

// decodeBinary20 decodes strings/binary: u64 end offsets with nulls folded in (§5.5.3).
func decodeBinary20(b *Builder, bin *enc20pb.Binary, bufs [][]byte, n, depth int) error {
	if b.Kind() != KindVariable {
		return fmt.Errorf("binary encoding for %s: %w", b.Type(), ErrCorrupt)
	}
	ends, err := DecodeUints20(bin.GetIndices(), bufs, uint64(n))
	if err != nil {
		return fmt.Errorf("binary indices: %w", err)
	}
	adj := bin.GetNullAdjustment()
	offs := make([]uint64, n+1)
	valid := make([]byte, bitutil.BytesForBits(int64(n)))
	for i, e := range ends {
		if adj != 0 && e >= adj {
			e -= adj
		} else {
			bitutil.SetBit(valid, i)
		}
		offs[i+1] = max(e, offs[i]) // nulls repeat the previous end; never go backwards
	}
	var total uint64
	if n > 0 {
		total = offs[n]
	}
	data, err := bytes20(bin.GetBytes(), bufs, total)
	if err != nil {
		return err
	}
	return b.AppendVariable(offs, data, 0, n, valid)
}

// bytes20 returns the value bytes of a Binary encoding: a Flat of 8 bits.
func bytes20(enc *enc20pb.ArrayEncoding, bufs [][]byte, total uint64) ([]byte, error) {
	f := enc.GetFlat()
	if f == nil || f.GetBitsPerValue() != 8 {
		return nil, NotSupported("2.0 binary bytes encoding %s", encName(enc))
	}
	if total > 1<<40 {
		return nil, fmt.Errorf("binary of %d bytes: %w", total, ErrCorrupt)
	}
	return flatBuffer20(f, bufs, int(total))
}

// decodeDictionary20 decodes a 2.0 Dictionary page. For Arrow dictionary fields the
// indices are 0-based keys with their own nulls; for the writer's own string dictionaries
// index 0 is null and k is items[k-1] (§5.5.3).
func decodeDictionary20(b *Builder, d *enc20pb.Dictionary, bufs [][]byte, n, depth int) error {
	bits := flatBits20(d.GetIndices())
	t, ok := uintTypes[bits]
	if !ok {
		return NotSupported("2.0 dictionary indices %s of %d bits", encName(d.GetIndices()), bits)
	}
	ib, err := NewBuilder(t)
	if err != nil {
		return err
	}
	if err := decode20(ib, d.GetIndices(), bufs, n, depth+1); err != nil {
		return fmt.Errorf("dictionary indices: %w", err)
	}
	items, err := NewBuilder(b.Type())
	if err != nil {
		return err
	}
	if d.GetNumDictionaryItems() > maxPageRows {
		return fmt.Errorf("dictionary of %d items: %w", d.GetNumDictionaryItems(), ErrCorrupt)
	}
	if err := decode20(items, d.GetItems(), bufs, int(d.GetNumDictionaryItems()), depth+1); err != nil {
		return fmt.Errorf("dictionary items: %w", err)
	}
	for i, k := range ib.Uints() {
		if !b.IsDictionary() {
			if k == 0 {
				b.AppendNulls(1)
				continue
			}
			k--
		} else if !ib.IsValid(i) {
			b.AppendNulls(1)
			continue
		}
		if k >= uint64(items.Len()) {
			return fmt.Errorf("dictionary index %d of %d items: %w", k, items.Len(), ErrCorrupt)
		}
		if err := b.AppendFrom(items, int(k), int(k)+1); err != nil {
			return err
		}
	}
	return nil
}

// Uints returns the values of an unsigned-integer builder widened to uint64.
func (b *Builder) Uints() []uint64 {
	out := make([]uint64, b.n)
	w := b.bits / 8
	for i := range out {
		switch w {
		case 1:
			out[i] = uint64(b.fixed[i])
		case 2:
			out[i] = uint64(binary.LittleEndian.Uint16(b.fixed[2*i:]))
		case 4:
			out[i] = uint64(binary.LittleEndian.Uint32(b.fixed[4*i:]))
		case 8:
			out[i] = binary.LittleEndian.Uint64(b.fixed[8*i:])
		}
	}
	return out
}

// AndValidity clears the validity of every slot whose bit in bm is 0.
func (b *Builder) AndValidity(bm []byte) {
	for i := range b.n {
		if !bitutil.BitIsSet(bm, i) && b.valid.isValid(i) {
			b.valid.materialize()
			bitutil.ClearBit(b.valid.bits, i)
			b.valid.nulls++
		}
	}
}
