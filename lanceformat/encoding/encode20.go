package encoding

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
)

// EncodeColumns20 encodes a top-level array as 2.0 pages, one per column of its field
// subtree in pre-order (§4.4, §5.5.2): a SimpleStruct header page for a struct (Rows = its
// length), an offsets page for a list (its items follow as the next columns' pages), and a
// value page for every other field. Values are stored as the 2.0 writer does by default:
// Nullable around Flat, Binary with u64 end offsets for strings, Nullable around
// FixedSizeList for fixed-size lists. Structs with null rows are rejected, as Lance does:
// 2.0 cannot store struct validity.
func EncodeColumns20(a arrow.Array) ([]*EncodedPage, error) {
	var out []*EncodedPage
	if err := encode20(a, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func encode20(a arrow.Array, out *[]*EncodedPage) error {
	switch a := a.(type) {
	case *array.Struct:
		if a.NullN() > 0 {
			return NotSupported("null struct values in a 2.0 file (%d nulls); use file version 2.1 or later", a.NullN())
		}
		*out = append(*out, &EncodedPage{Rows: uint64(a.Len()),
			Array: &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Struct{Struct: &enc20pb.SimpleStruct{}}}})
		for j := range a.NumField() {
			if err := encode20(a.Field(j), out); err != nil {
				return err
			}
		}
		return nil
	case array.ListLike:
		if _, ok := a.(*array.FixedSizeList); !ok {
			return encodeList20(a, out)
		}
	}
	p := &page20{}
	enc, err := p.values(a)
	if err != nil {
		return err
	}
	*out = append(*out, &EncodedPage{Rows: uint64(a.Len()), Buffers: p.bufs, Array: enc})
	return nil
}

// encodeList20 writes the offsets page of a list and then its items (the slice of the item
// array the rows refer to).
func encodeList20(a array.ListLike, out *[]*EncodedPage) error {
	switch a.(type) {
	case *array.List, *array.LargeList:
	default:
		return NotSupported("writing %s", a.DataType())
	}
	n := a.Len()
	var base, end int64
	if n > 0 {
		base, _ = a.ValueOffsets(0)
		_, end = a.ValueOffsets(n - 1)
	}
	numItems := uint64(end - base)
	adj := numItems + 1
	offs := make([]byte, 8*n)
	for i := range n {
		_, e := a.ValueOffsets(i)
		v := uint64(e - base)
		if a.IsNull(i) {
			v += adj
		}
		binary.LittleEndian.PutUint64(offs[8*i:], v)
	}
	*out = append(*out, &EncodedPage{Rows: uint64(n), Buffers: [][]byte{offs},
		Array: &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_List{List: &enc20pb.List{
			Offsets: noNulls(flat20(64, 0)), NullOffsetAdjustment: adj, NumItems: numItems}}}})
	items := array.NewSlice(a.ListValues(), base, end)
	defer items.Release()
	return encode20(items, out)
}

// page20 collects the buffers of one 2.0 page; buffer indices follow the order of addition.
type page20 struct{ bufs [][]byte }

func (p *page20) add(b []byte) uint32 {
	p.bufs = append(p.bufs, b)
	return uint32(len(p.bufs) - 1)
}

func flat20(bits uint64, buf uint32) *enc20pb.ArrayEncoding {
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Flat{Flat: &enc20pb.Flat{
		BitsPerValue: bits, Buffer: &enc20pb.Buffer{BufferIndex: buf}}}}
}

func noNulls(values *enc20pb.ArrayEncoding) *enc20pb.ArrayEncoding {
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Nullable{Nullable: &enc20pb.Nullable{
		Nullability: &enc20pb.Nullable_NoNulls{NoNulls: &enc20pb.Nullable_NoNull{Values: values}}}}}
}

// nullable wraps the encoding made by values in a Nullable, adding the validity bitmap of a
// first when a has some nulls.
func (p *page20) nullable(a arrow.Array, values func() (*enc20pb.ArrayEncoding, error)) (*enc20pb.ArrayEncoding, error) {
	switch {
	case a.Len() > 0 && a.NullN() == a.Len():
		return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Nullable{Nullable: &enc20pb.Nullable{
			Nullability: &enc20pb.Nullable_AllNulls{AllNulls: &enc20pb.Nullable_AllNull{}}}}}, nil
	case a.NullN() == 0:
		v, err := values()
		if err != nil {
			return nil, err
		}
		return noNulls(v), nil
	}
	valid := validityBits(a)
	vi := p.add(valid)
	v, err := values()
	if err != nil {
		return nil, err
	}
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Nullable{Nullable: &enc20pb.Nullable{
		Nullability: &enc20pb.Nullable_SomeNulls{SomeNulls: &enc20pb.Nullable_SomeNull{
			Validity: flat20(1, vi), Values: v}}}}}, nil
}

// validityBits returns a's validity as a bitmap starting at bit 0.
func validityBits(a arrow.Array) []byte {
	n := a.Len()
	bufs := a.Data().Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		out := make([]byte, bitutil.BytesForBits(int64(n)))
		bitutil.SetBitsTo(out, 0, int64(n), true)
		return out
	}
	return sliceBits(bufs[0].Bytes(), a.Data().Offset(), n)
}

// values encodes a non-struct, non-list array.
func (p *page20) values(a arrow.Array) (*enc20pb.ArrayEncoding, error) {
	switch a := a.(type) {
	case *array.String:
		if enc := p.dictionary(a); enc != nil {
			return enc, nil
		}
		return p.binary(a), nil
	case *array.Binary, *array.LargeString, *array.LargeBinary:
		return p.binary(a), nil
	case *array.FixedSizeList:
		return p.nullable(a, func() (*enc20pb.ArrayEncoding, error) {
			items := array.NewSlice(a.ListValues(), int64(a.Data().Offset())*int64(a.DataType().(*arrow.FixedSizeListType).Len()),
				int64(a.Data().Offset()+a.Len())*int64(a.DataType().(*arrow.FixedSizeListType).Len()))
			defer items.Release()
			if _, nested := items.(array.ListLike); nested || fixedBits(items.DataType()) < 8 {
				return nil, NotSupported("writing fixed-size lists of %s", items.DataType())
			}
			inner, err := p.values(items)
			if err != nil {
				return nil, err
			}
			return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeList{FixedSizeList: &enc20pb.FixedSizeList{
				Dimension: uint32(a.DataType().(*arrow.FixedSizeListType).Len()), Items: inner}}}, nil
		})
	}
	bits := fixedBits(a.DataType())
	if bits == 0 {
		return nil, NotSupported("writing values of type %s", a.DataType())
	}
	return p.nullable(a, func() (*enc20pb.ArrayEncoding, error) {
		var data []byte
		if bits == 1 {
			data = sliceBits(dataBytes(a), a.Data().Offset(), a.Len())
		} else {
			w := bits / 8
			off := a.Data().Offset()
			data = append([]byte(nil), dataBytes(a)[off*w:(off+a.Len())*w]...)
		}
		return flat20(uint64(bits), p.add(data)), nil
	})
}

// binary encodes strings or binary as Binary{u64 end offsets, bytes}; null rows add no
// bytes and carry null_adjustment = total bytes + 1 on their offset.
func (p *page20) binary(a arrow.Array) *enc20pb.ArrayEncoding {
	return p.binaryOf(a.Len(), a.IsValid, func(i int) []byte { return varValue(a, i) })
}

// binaryOf encodes n values, value(i) for the valid ones, as a 2.0 Binary.
func (p *page20) binaryOf(n int, valid func(int) bool, value func(int) []byte) *enc20pb.ArrayEncoding {
	var data []byte
	ends := make([]uint64, n)
	for i := range n {
		if valid(i) {
			data = append(data, value(i)...)
		}
		ends[i] = uint64(len(data))
	}
	adj := uint64(len(data)) + 1
	offs := make([]byte, 8*n)
	for i, e := range ends {
		if !valid(i) {
			e += adj
		}
		binary.LittleEndian.PutUint64(offs[8*i:], e)
	}
	oi := p.add(offs)
	bi := p.add(data)
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Binary{Binary: &enc20pb.Binary{
		Indices: noNulls(flat20(64, oi)), Bytes: flat20(8, bi), NullAdjustment: adj}}}
}

// 2.0 string dictionary thresholds (§5.5.2): pages of at least dict20MinRows rows with
// fewer than dict20MaxItems distinct values.
const (
	dict20MinRows  = 100
	dict20MaxItems = 100
)

// dictionary encodes a low-cardinality Utf8 page as the 2.0 writer does: u8 indices where
// 0 means null and k means items[k-1], and the distinct values as a Binary. It returns nil
// when the page does not qualify.
func (p *page20) dictionary(a *array.String) *enc20pb.ArrayEncoding {
	n := a.Len()
	if n < dict20MinRows || a.NullN() == n {
		return nil
	}
	seen := make(map[string]int, dict20MaxItems)
	var items []string
	idx := make([]byte, n)
	for i := range n {
		if a.IsNull(i) {
			continue
		}
		s := a.Value(i)
		k, ok := seen[s]
		if !ok {
			if len(items)+1 >= dict20MaxItems {
				return nil
			}
			k = len(items) + 1
			seen[s] = k
			items = append(items, s)
		}
		idx[i] = byte(k)
	}
	ii := p.add(idx)
	itemEnc := p.binaryOf(len(items), func(int) bool { return true }, func(i int) []byte { return []byte(items[i]) })
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Dictionary{Dictionary: &enc20pb.Dictionary{
		Indices: noNulls(flat20(8, ii)), Items: itemEnc, NumDictionaryItems: uint32(len(items))}}}
}
