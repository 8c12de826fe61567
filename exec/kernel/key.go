package kernel

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/internal/dberr"
)

// KeyEncoder appends an encoding of row i of one column to dst. Two rows have equal
// encodings exactly when their values are equal for grouping purposes: NULLs are equal to
// each other, -0.0 equals 0.0 and all NaNs are equal (as in DuckDB's GROUP BY and DISTINCT).
// Encodings of consecutive columns can be concatenated: each is self-delimiting.
type KeyEncoder func(dst []byte, i int) []byte

// NewKeyEncoder returns the encoder for arr. arr must stay alive while the encoder is used.
func NewKeyEncoder(arr arrow.Array) (KeyEncoder, error) {
	valid := func(i int) bool { return IsValid(arr, i) }
	withNull := func(enc func(dst []byte, i int) []byte) KeyEncoder {
		return func(dst []byte, i int) []byte {
			if !valid(i) {
				return append(dst, 0)
			}
			return enc(append(dst, 1), i)
		}
	}
	switch a := arr.(type) {
	case *array.Null:
		return func(dst []byte, _ int) []byte { return append(dst, 0) }, nil
	case *array.Boolean:
		return withNull(func(dst []byte, i int) []byte {
			if a.Value(i) {
				return append(dst, 1)
			}
			return append(dst, 0)
		}), nil
	case *array.Float32:
		return withNull(func(dst []byte, i int) []byte {
			return binary.LittleEndian.AppendUint64(dst, floatBits(float64(a.Value(i))))
		}), nil
	case *array.Float64:
		return withNull(func(dst []byte, i int) []byte {
			return binary.LittleEndian.AppendUint64(dst, floatBits(a.Value(i)))
		}), nil
	case *array.String:
		return withNull(func(dst []byte, i int) []byte { return appendBytes(dst, a.Value(i)) }), nil
	case *array.LargeString:
		return withNull(func(dst []byte, i int) []byte { return appendBytes(dst, a.Value(i)) }), nil
	case *array.Binary:
		return withNull(func(dst []byte, i int) []byte { return appendBytes(dst, string(a.Value(i))) }), nil
	case *array.LargeBinary:
		return withNull(func(dst []byte, i int) []byte { return appendBytes(dst, string(a.Value(i))) }), nil
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth()%8 == 0 && len(arr.Data().Buffers()) == 2 {
		width := fw.BitWidth() / 8
		off := arr.Data().Offset()
		var raw []byte
		if buf := arr.Data().Buffers()[1]; buf != nil {
			raw = buf.Bytes()
		}
		return withNull(func(dst []byte, i int) []byte {
			start := (off + i) * width
			return append(dst, raw[start:start+width]...)
		}), nil
	}
	if enc, ok, err := structKeyEncoder(arr); ok { // struct_key.go
		return enc, err
	}
	return nil, dberr.NotSupported("grouping or DISTINCT on type " + arr.DataType().String())
}

// floatBits maps equal floats (as GROUP BY sees them) to equal bit patterns.
func floatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

func appendBytes(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}
