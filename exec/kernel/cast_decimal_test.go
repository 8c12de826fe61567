package kernel_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// The expected values and messages are DuckDB 2.0's.
func TestCastDecimal(t *testing.T) {
	dec := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	cases := []struct {
		name     string
		src, dst arrow.DataType
		in       []string // unscaled decimal values, or integers; "" is NULL
		want     []string // ValueStr of the result; "" is NULL
		err      string
	}{
		{"round-half-away", dec(5, 2), dec(5, 1), []string{"-125", "125", "124", ""}, []string{"-1.3", "1.3", "1.2", ""}, ""},
		{"widen-scale", dec(5, 2), dec(9, 4), []string{"-125"}, []string{"-1.25"}, ""},
		{"to-int-rounds", dec(4, 1), arrow.PrimitiveTypes.Int32, []string{"-5", "25", "24"}, []string{"-1", "3", "2"}, ""},
		{"to-tinyint", dec(5, 1), arrow.PrimitiveTypes.Int8, []string{"1274"}, []string{"127"}, ""},
		{"to-tinyint-overflow", dec(5, 1), arrow.PrimitiveTypes.Int8, []string{"1275"}, nil, "Failed to cast decimal value 128 to type INT8"},
		{"to-unsigned-negative", dec(5, 1), arrow.PrimitiveTypes.Uint32, []string{"-11"}, nil, "Failed to cast decimal value -1 to type UINT32"},
		{"int-to-decimal", arrow.PrimitiveTypes.Int64, dec(3, 2), []string{"-3", "9"}, []string{"-3", "9"}, ""},
		{"int-to-decimal-overflow", arrow.PrimitiveTypes.Int64, dec(4, 0), []string{"12345"}, nil, "Could not cast value 12345 to DECIMAL(4,0)"},
		{"decimal-overflow", dec(5, 2), dec(4, 2), []string{"12345"}, nil, `Casting value "123.45" to type DECIMAL(4,2) failed: value is out of range!`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			var in arrow.Array
			if d, ok := c.src.(*arrow.Decimal128Type); ok {
				in = decimals(t, mem, d.Precision, d.Scale, c.in...)
			} else {
				in = decimals(t, mem, 38, 0, c.in...)
				cast, err := kernel.CastDecimal(mem, in, c.src, false)
				require.NoError(t, err)
				in.Release()
				in = cast
			}
			defer in.Release()
			require.True(t, kernel.IsDecimalCast(c.src, c.dst))
			out, err := kernel.CastDecimal(mem, in, c.dst, false)
			if c.err != "" {
				require.EqualError(t, err, "Conversion Error: "+c.err)
				tryOut, err := kernel.CastDecimal(mem, in, c.dst, true)
				require.NoError(t, err)
				defer tryOut.Release()
				require.True(t, tryOut.IsNull(0), "TRY_CAST gives NULL")
				return
			}
			require.NoError(t, err)
			defer out.Release()
			require.True(t, arrow.TypeEqual(c.dst, out.DataType()))
			for i, w := range c.want {
				if w == "" {
					require.True(t, out.IsNull(i))
					continue
				}
				require.Equal(t, w, out.ValueStr(i), "row %d", i)
			}
		})
	}
	require.False(t, kernel.IsDecimalCast(arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 5, Scale: 1}))
}
