package kernel_test

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// randDecimals builds n decimal(38, scale) values: mostly small, some near the int64 limits
// and (wide) beyond, every 7th NULL; the array is then sliced by off rows.
func randDecimals(mem memory.Allocator, r *rand.Rand, n, off int, scale int32, wide bool) arrow.Array {
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: scale})
	defer b.Release()
	for i := range n + off {
		switch {
		case i%7 == 3:
			b.AppendNull()
		case i%11 == 5:
			b.Append(decimal128.FromI64(math.MaxInt64 - r.Int64N(3)))
		case wide && i%13 == 6:
			b.Append(decimal128.FromBigInt(new(big.Int).Mul(big.NewInt(r.Int64N(1<<40)-1<<39), big.NewInt(1<<40))))
		case i%17 == 2:
			b.Append(decimal128.FromI64(math.MinInt64 / (1 + r.Int64N(4))))
		default:
			b.Append(decimal128.FromI64(r.Int64N(1<<33) - 1<<32))
		}
	}
	all := b.NewArray()
	defer all.Release()
	return array.NewSlice(all, int64(off), int64(off+n))
}

func TestDecimalArithMatchesBigInt(t *testing.T) {
	cases := []struct {
		name   string
		op     int
		as, bs int32
	}{
		{"add", kernel.OpAdd, 2, 2}, {"add-rescale", kernel.OpAdd, 2, 0}, {"subtract", kernel.OpSubtract, 0, 3},
		{"multiply", kernel.OpMultiply, 2, 2}, {"multiply-scale0", kernel.OpMultiply, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(1, uint64(c.op)))
			for _, small := range []bool{true, false} { // small: only int32-sized values (fast path)
				wide := c.op != kernel.OpMultiply // products of wide values overflow 38 digits
				a := randDecimals(mem, r, 300, 3, c.as, wide)
				b := randDecimals(mem, r, 300, 5, c.bs, wide)
				if small {
					a.Release()
					b.Release()
					a, b = smallDecimals(mem, r, 300, c.as), smallDecimals(mem, r, 300, c.bs)
				}
				out, ok, err := kernel.DecimalArith(mem, c.op, a, b)
				require.True(t, ok)
				require.NoError(t, err) // no result of these inputs needs more than 38 digits
				checkDecimalArith(t, c.op, a, b, out)
				out.Release()
				a.Release()
				b.Release()
			}
		})
	}
}

func smallDecimals(mem memory.Allocator, r *rand.Rand, n int, scale int32) arrow.Array {
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: scale})
	defer b.Release()
	for i := range n {
		if i%9 == 4 {
			b.AppendNull()
			continue
		}
		b.Append(decimal128.FromI64(r.Int64N(20001) - 10000))
	}
	return b.NewArray()
}

func checkDecimalArith(t *testing.T, op int, a, b, out arrow.Array) {
	t.Helper()
	da, db := a.DataType().(*arrow.Decimal128Type), b.DataType().(*arrow.Decimal128Type)
	av, bv, ov := a.(*array.Decimal128), b.(*array.Decimal128), out.(*array.Decimal128)
	scale := max(da.Scale, db.Scale)
	if op == kernel.OpMultiply {
		scale = da.Scale + db.Scale
	}
	require.Equal(t, scale, out.DataType().(*arrow.Decimal128Type).Scale)
	for i := range a.Len() {
		if a.IsNull(i) || b.IsNull(i) {
			require.True(t, ov.IsNull(i), "row %d", i)
			continue
		}
		x, y := av.Value(i).BigInt(), bv.Value(i).BigInt()
		want := new(big.Int)
		switch op {
		case kernel.OpMultiply:
			want.Mul(x, y)
		default:
			x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-da.Scale)), nil))
			y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-db.Scale)), nil))
			if op == kernel.OpAdd {
				want.Add(x, y)
			} else {
				want.Sub(x, y)
			}
		}
		require.True(t, ov.IsValid(i), "row %d", i)
		require.Equal(t, want.String(), ov.Value(i).BigInt().String(), "row %d", i)
	}
}

func TestNarrowDecimal(t *testing.T) {
	cases := []struct {
		name  string
		vals  []string
		prec  int32
		scale int32
		ok    bool
	}{
		{"fits", []string{"99999", "-99999", ""}, 5, 2, true},
		{"too-wide", []string{"100000"}, 5, 2, false},
		{"too-wide-negative", []string{"-100000"}, 5, 2, false},
		{"wide-precision", []string{"12345678901234567890123"}, 30, 2, true},
		{"other-scale", []string{"1"}, 5, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := decimals(t, mem, 38, 2, c.vals...)
			defer a.Release()
			dst := &arrow.Decimal128Type{Precision: c.prec, Scale: c.scale}
			out, ok := kernel.NarrowDecimal(a, dst)
			require.Equal(t, c.ok, ok)
			if !ok {
				return
			}
			defer out.Release()
			require.Equal(t, dst, out.DataType())
			require.Equal(t, a.NullN(), out.NullN())
			for i := range a.Len() {
				require.Equal(t, a.IsNull(i), out.IsNull(i))
				if a.IsValid(i) {
					require.Equal(t, a.(*array.Decimal128).Value(i), out.(*array.Decimal128).Value(i))
				}
			}
		})
	}
}

func TestDecimalToFloat64(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []string{"5", "7", "-5", "1", "", "123456789", "4503599627370495"}
	a := decimals(t, mem, 38, 2, vals...)
	defer a.Release()
	out, ok := kernel.DecimalToFloat64(mem, a, arrow.PrimitiveTypes.Float64)
	require.True(t, ok)
	defer out.Release()
	f := out.(*array.Float64)
	for i, v := range vals {
		if v == "" {
			require.True(t, f.IsNull(i))
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		neg := ""
		if n < 0 {
			neg, n = "-", -n
		}
		want, err := strconv.ParseFloat(neg+strconv.FormatInt(n/100, 10)+"."+strconv.FormatInt(100+n%100, 10)[1:], 64)
		require.NoError(t, err)
		require.Equal(t, want, f.Value(i), "row %d (%s)", i, v) // correctly rounded, like parsing
	}
	// Beyond 2^53 too: the double nearest the decimal (90071992547409.93; 98765432109876543.21).
	wide := decimals(t, mem, 38, 2, "9007199254740993", "9876543210987654321")
	defer wide.Release()
	wout, ok := kernel.DecimalToFloat64(mem, wide, arrow.PrimitiveTypes.Float64)
	require.True(t, ok)
	defer wout.Release()
	require.Equal(t, []float64{90071992547409.93, 98765432109876543.21}, wout.(*array.Float64).Float64Values())
}

// TestCompareFast checks CompareFast against arrow's comparison kernels.
func TestCompareFast(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 20, Scale: 2}}
	for _, dt := range types {
		for _, fn := range []string{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"} {
			t.Run(dt.String()+"/"+fn, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				a, b := randColumn(mem, r, dt, 203, 3), randColumn(mem, r, dt, 203, 10)
				defer a.Release()
				defer b.Release()
				got, ok := kernel.CompareFast(mem, fn, a, b)
				require.True(t, ok)
				defer got.Release()
				want, err := compute.CallFunction(compute.WithAllocator(context.Background(), mem), fn, nil,
					compute.NewDatumWithoutOwning(a), compute.NewDatumWithoutOwning(b))
				require.NoError(t, err)
				defer want.Release()
				w := want.(*compute.ArrayDatum).MakeArray()
				defer w.Release()
				require.True(t, array.Equal(w, got), "arrow %s\nfast  %s", w, got)
			})
		}
	}
}

// randColumn builds n values of dt from a small domain (so that equal values occur), every
// 5th NULL, sliced by off rows; float64 columns include NaN.
func randColumn(mem memory.Allocator, r *rand.Rand, dt arrow.DataType, n, off int) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := range n + off {
		v := r.Int64N(9) - 4
		switch {
		case i%5 == 1:
			b.AppendNull()
		case dt.ID() == arrow.INT32:
			b.(*array.Int32Builder).Append(int32(v))
		case dt.ID() == arrow.DATE32:
			b.(*array.Date32Builder).Append(arrow.Date32(v))
		case dt.ID() == arrow.INT64:
			b.(*array.Int64Builder).Append(v << 40)
		case dt.ID() == arrow.FLOAT64 && i%9 == 0:
			b.(*array.Float64Builder).Append(math.NaN())
		case dt.ID() == arrow.FLOAT64:
			b.(*array.Float64Builder).Append(float64(v) / 4)
		default:
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(v).Mul(decimal128.FromU64(1 << 62)))
		}
	}
	all := b.NewArray()
	defer all.Release()
	return array.NewSlice(all, int64(off), int64(off+n))
}

func TestSelectTrueAndTrue(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// 150 rows then sliced by 3: TRUE where i%3 == 0, NULL where i%10 == 0.
	build := func(mod int) arrow.Array {
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		for i := range 153 {
			if i%10 == 0 {
				b.AppendNull()
			} else {
				b.Append(i%mod == 0)
			}
		}
		all := b.NewArray()
		defer all.Release()
		return array.NewSlice(all, 3, 153)
	}
	a, b := build(3), build(2)
	defer a.Release()
	defer b.Release()
	sel, err := kernel.SelectTrue(a, nil)
	require.NoError(t, err)
	var want []int32
	for i := range 150 {
		if j := i + 3; j%10 != 0 && j%3 == 0 {
			want = append(want, int32(i))
		}
	}
	require.Equal(t, want, sel)
	both, err := kernel.AndTrue(mem, a, b)
	require.NoError(t, err)
	defer both.Release()
	require.Zero(t, both.NullN())
	sel, err = kernel.SelectTrue(both, sel)
	require.NoError(t, err)
	want = want[:0]
	for i := range 150 {
		if j := i + 3; j%10 != 0 && j%6 == 0 {
			want = append(want, int32(i))
		}
	}
	require.Equal(t, want, sel)
}

// TestTake checks kernel.Take against arrow's take.
func TestTake(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
		&arrow.Decimal128Type{Precision: 20, Scale: 2}, arrow.BinaryTypes.String}
	for _, dt := range types {
		t.Run(dt.String(), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			var col arrow.Array
			if dt.ID() == arrow.STRING {
				col = randStrings(mem, r, 100, 7)
			} else {
				col = randColumn(mem, r, dt, 100, 7)
			}
			defer col.Release()
			idx := []int32{0, 5, 5, 99, 1, 42, 17, 63, 64, 2}
			got, ok := kernel.Take(mem, col, idx)
			require.True(t, ok)
			defer got.Release()
			ib := array.NewInt32Builder(mem)
			ib.AppendValues(idx, nil)
			ia := ib.NewArray()
			ib.Release()
			defer ia.Release()
			want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), col, ia)
			require.NoError(t, err)
			defer want.Release()
			require.True(t, array.ApproxEqual(want, got, array.WithNaNsEqual(true)), "arrow %s\nfast  %s", want, got)
		})
	}
}

func randStrings(mem memory.Allocator, r *rand.Rand, n, off int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for i := range n + off {
		if i%6 == 2 {
			b.AppendNull()
			continue
		}
		b.Append(strconv.Itoa(int(r.Int64N(1000))) + "x")
	}
	all := b.NewArray()
	defer all.Release()
	return array.NewSlice(all, int64(off), int64(off+n))
}

// TestRowKeys checks that RowKeys encodes rows exactly as KeyEncoder does, column by column.
func TestRowKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(5, 6))
	cols := []arrow.Array{randStrings(mem, r, 50, 3), randColumn(mem, r, arrow.PrimitiveTypes.Int32, 50, 1),
		randColumn(mem, r, arrow.PrimitiveTypes.Float64, 50, 2), randColumn(mem, r, &arrow.Decimal128Type{Precision: 20, Scale: 2}, 50, 0)}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, set := range [][]arrow.Array{cols[:1], cols[1:2], cols} {
		var rk kernel.RowKeys
		require.NoError(t, rk.Encode(set, 50))
		encs := make([]kernel.KeyEncoder, len(set))
		for i, c := range set {
			var err error
			encs[i], err = kernel.NewKeyEncoder(c)
			require.NoError(t, err)
		}
		for row := range 50 {
			var want []byte
			for _, e := range encs {
				want = e(want, row)
			}
			require.Equal(t, want, rk.Key(row), "row %d", row)
		}
	}
}
