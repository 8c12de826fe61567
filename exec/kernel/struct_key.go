package kernel

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// structKeyEncoder encodes a struct row (a list row: listKeyEncoder) as a validity byte followed by the encodings of
// its fields (each self-delimiting), so equal structs, NULL fields included, encode alike
// (GROUP BY, DISTINCT and join keys over structs). ok is false for other types.
func structKeyEncoder(arr arrow.Array) (KeyEncoder, bool, error) {
	s, ok := arr.(*array.Struct)
	if !ok {
		return listKeyEncoder(arr)
	}
	fields := make([]KeyEncoder, s.NumField())
	for k := range fields {
		enc, err := NewKeyEncoder(s.Field(k))
		if err != nil {
			return nil, true, err
		}
		fields[k] = enc
	}
	return func(dst []byte, i int) []byte {
		if !IsValid(s, i) {
			return append(dst, 0)
		}
		dst = append(dst, 1)
		for _, enc := range fields {
			dst = enc(dst, i)
		}
		return dst
	}, true, nil
}

// listKeyEncoder encodes a list row as a validity byte, the element count and the
// elements' encodings (GROUP BY, DISTINCT and join keys over lists). ok is false for
// other types.
func listKeyEncoder(arr arrow.Array) (KeyEncoder, bool, error) {
	l, ok := arr.(array.ListLike)
	if !ok {
		return nil, false, nil
	}
	elems, err := NewKeyEncoder(l.ListValues())
	if err != nil {
		return nil, true, err
	}
	return func(dst []byte, i int) []byte {
		if !IsValid(l, i) {
			return append(dst, 0)
		}
		start, end := l.ValueOffsets(i)
		dst = binary.AppendUvarint(append(dst, 1), uint64(end-start))
		for k := start; k < end; k++ {
			dst = elems(dst, int(k))
		}
		return dst
	}, true, nil
}
