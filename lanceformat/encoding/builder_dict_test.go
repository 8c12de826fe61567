package encoding_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
)

// appendDense appends the values of a dense array (variable-width or byte-aligned
// fixed-width) to b slot by slot, nulls included.
func appendDense(t *testing.T, b *encoding.Builder, arr arrow.Array) {
	t.Helper()
	for i := range arr.Len() {
		if arr.IsNull(i) {
			b.AppendNulls(1)
			continue
		}
		var err error
		switch a := arr.(type) {
		case *array.String:
			err = b.AppendValue([]byte(a.Value(i)), true)
		case *array.LargeString:
			err = b.AppendValue([]byte(a.Value(i)), true)
		case *array.Binary:
			err = b.AppendValue(a.Value(i), true)
		case *array.LargeBinary:
			err = b.AppendValue(a.Value(i), true)
		case *array.FixedSizeBinary:
			err = b.AppendFixed(a.Value(i), 0, 1, nil)
		default:
			w := arr.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
			raw := arr.Data().Buffers()[1].Bytes()[(arr.Data().Offset()+i)*w:]
			err = b.AppendFixed(raw, 0, 1, nil)
		}
		require.NoError(t, err)
	}
}

// Dictionary fields are encoded by the builder itself, for value types arrow-go's
// dictionary builder lacks (large_string, large_binary) as well as the others: the
// result has the field's exact type, its distinct values in first-seen order, and
// decodes back to the input value for value, nulls included.
func TestDictionaryFinish(t *testing.T) {
	tests := []struct {
		name      string
		value     arrow.DataType
		index     arrow.DataType
		js        string
		wantDict  int
		wantError bool
	}{
		{"large_string", arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int32,
			`["b", null, "a", "b", "", "a", null, "longer than thirty-two bytes, surely!"]`, 4, false},
		{"large_binary", arrow.BinaryTypes.LargeBinary, arrow.PrimitiveTypes.Int16,
			`["AAE=", "AAE=", "", null, "/w=="]`, 3, false},
		{"string", arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8, `["x", "y", "x"]`, 2, false},
		{"binary", arrow.BinaryTypes.Binary, arrow.PrimitiveTypes.Uint8, `["eA==", null, "eA=="]`, 1, false},
		{"int64", arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, `[7, 7, null, -1, 7]`, 2, false},
		{"float64", arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64, `[1.5, 2.5, 1.5]`, 2, false},
		{"fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 2}, arrow.PrimitiveTypes.Int32,
			`["AAE=", "AAI=", "AAE="]`, 2, false},
		{"all null", arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int32, `[null, null]`, 0, false},
		{"empty", arrow.BinaryTypes.LargeBinary, arrow.PrimitiveTypes.Int32, `[]`, 0, false},
		{"int8 index overflow", arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int8, distinctJSON(129), 0, true},
		{"int8 index full", arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int8, distinctJSON(128), 128, false},
		{"uint8 index full", arrow.BinaryTypes.String, arrow.PrimitiveTypes.Uint8, distinctJSON(256), 256, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			dt := &arrow.DictionaryType{IndexType: tc.index, ValueType: tc.value}
			want, _, err := array.FromJSON(mem, tc.value, strings.NewReader(tc.js))
			require.NoError(t, err)
			defer want.Release()
			b, err := encoding.NewBuilder(dt)
			require.NoError(t, err)
			defer b.Release()
			require.True(t, b.IsDictionary())
			appendDense(t, b, want)
			got, err := b.FinishArray(mem)
			if tc.wantError {
				require.ErrorIs(t, err, encoding.ErrCorrupt)
				return
			}
			require.NoError(t, err)
			defer got.Release()
			require.True(t, arrow.TypeEqual(dt, got.DataType()), "type %s", got.DataType())
			d := got.(*array.Dictionary)
			require.Equal(t, tc.wantDict, d.Dictionary().Len())
			require.Equal(t, want.NullN(), got.NullN())
			dense, err := compute.TakeArray(context.Background(), d.Dictionary(), d.Indices())
			require.NoError(t, err)
			defer dense.Release()
			require.True(t, array.Equal(want, dense), "want %s\ngot  %s", want, dense)
			if tc.wantDict > 0 {
				require.Equal(t, 0, d.GetValueIndex(firstValid(want)), "first-seen order")
			}
		})
	}
}

func distinctJSON(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func firstValid(a arrow.Array) int {
	for i := range a.Len() {
		if a.IsValid(i) {
			return i
		}
	}
	return -1
}

// Dictionaries of types the builder cannot encode are refused up front.
func TestDictionaryUnsupported(t *testing.T) {
	for _, dt := range []*arrow.DictionaryType{
		{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.FixedWidthTypes.Boolean},
		{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	} {
		_, err := encoding.NewBuilder(dt)
		require.ErrorIs(t, err, encoding.ErrNotSupported, "%s", dt)
	}
	_, err := encoding.NewBuilder(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Float32, ValueType: arrow.BinaryTypes.String})
	require.ErrorIs(t, err, encoding.ErrCorrupt)
}
