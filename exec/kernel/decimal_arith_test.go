package kernel_test

import (
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// decimals builds a decimal128(prec, scale) array of unscaled values given as strings ("" is
// NULL).
func decimals(t *testing.T, mem memory.Allocator, prec, scale int32, vals ...string) arrow.Array {
	t.Helper()
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: prec, Scale: scale})
	defer b.Release()
	for _, v := range vals {
		if v == "" {
			b.AppendNull()
			continue
		}
		n, ok := new(big.Int).SetString(v, 10)
		require.True(t, ok, v)
		b.Append(decimal128.FromBigInt(n))
	}
	return b.NewArray()
}

func TestDecimalArith(t *testing.T) {
	const big37 = "9999999999999999999999999999999999999" // 37 nines
	cases := []struct {
		name      string
		op        int
		a, b      []string
		as, bs    int32 // scales
		want      []string
		wantScale int32
		errKind   dberr.Kind
	}{
		{"add-same-scale", kernel.OpAdd, []string{"125", "-300", ""}, []string{"1", "300", "5"}, 2, 2, []string{"126", "0", ""}, 2, 0},
		{"add-rescales", kernel.OpAdd, []string{"125"}, []string{"1"}, 2, 0, []string{"225"}, 2, 0},
		{"subtract-rescales", kernel.OpSubtract, []string{"1"}, []string{"5"}, 0, 2, []string{"95"}, 2, 0},
		{"multiply-adds-scales", kernel.OpMultiply, []string{"1050", "-3"}, []string{"96", "7"}, 2, 2, []string{"100800", "-21"}, 4, 0},
		{"multiply-beyond-int64", kernel.OpMultiply, []string{"9223372036854775807"}, []string{"10"}, 0, 0, []string{"92233720368547758070"}, 0, 0},
		{"multiply-wide", kernel.OpMultiply, []string{"100000000000000000000"}, []string{"-3"}, 1, 1, []string{"-300000000000000000000"}, 2, 0},
		{"add-overflow", kernel.OpAdd, []string{big37 + "9"}, []string{"1"}, 0, 0, nil, 0, dberr.OutOfRange},
		{"multiply-overflow", kernel.OpMultiply, []string{big37}, []string{big37}, 0, 0, nil, 0, dberr.OutOfRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := decimals(t, mem, 38, c.as, c.a...)
			defer a.Release()
			b := decimals(t, mem, 38, c.bs, c.b...)
			defer b.Release()
			out, ok, err := kernel.DecimalArith(mem, c.op, a, b)
			require.True(t, ok)
			if c.want == nil {
				require.Error(t, err)
				kind, ok := dberr.KindOf(err)
				require.True(t, ok)
				require.Equal(t, c.errKind, kind)
				return
			}
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, &arrow.Decimal128Type{Precision: 38, Scale: c.wantScale}, out.DataType())
			d := out.(*array.Decimal128)
			for i, w := range c.want {
				if w == "" {
					require.True(t, d.IsNull(i))
					continue
				}
				require.Equal(t, w, d.Value(i).BigInt().String(), "row %d", i)
			}
		})
	}
}

func TestDecimalArithNotDecimal(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Append(1)
	a := b.NewArray()
	defer a.Release()
	_, ok, err := kernel.DecimalArith(mem, kernel.OpAdd, a, a)
	require.False(t, ok)
	require.NoError(t, err)
}
