package kernel

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pow10Int64 holds 10^0 … 10^18.
var pow10Int64 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// mulInt64 returns x*y and whether it did not overflow.
func mulInt64(x, y int64) (int64, bool) {
	const small = 1 << 31
	if x > -small && x < small && y > -small && y < small {
		return x * y, true
	}
	hi, lo := bits.Mul64(uint64(absInt64(x)), uint64(absInt64(y)))
	if hi != 0 || lo > 1<<63-1 || x == minInt64 || y == minInt64 {
		return 0, false
	}
	if (x < 0) != (y < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

const minInt64 = -1 << 63

func absInt64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// decimalArithFast is DecimalArith over values that fit in int64 (after rescaling) with a
// result that fits in int64: one loop, no big.Int. Rows under NULLs are computed too (their
// values are whatever the buffer holds), so ok is false, and the caller takes the exact path,
// as soon as any row does not fit.
func decimalArithFast(mem memory.Allocator, op int, a, b arrow.Array, shiftA, shiftB int32, dt arrow.DataType) (arrow.Array, bool) {
	if shiftA > 18 || shiftB > 18 || a.Len() != b.Len() {
		return nil, false
	}
	av := arrow.GetValues[decimal128.Num](a.Data(), 1)
	bv := arrow.GetValues[decimal128.Num](b.Data(), 1)
	n := a.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * 16)
	out := arrow.GetData[decimal128.Num](buf.Bytes())[:n]
	ma, mb := pow10Int64[shiftA], pow10Int64[shiftB]
	for i := range n {
		x, y := av[i], bv[i]
		if !fitsInt64(x) || !fitsInt64(y) {
			buf.Release()
			return nil, false
		}
		xi, yi, ok1, ok2 := int64(x.LowBits()), int64(y.LowBits()), true, true
		if ma != 1 {
			xi, ok1 = mulInt64(xi, ma)
		}
		if mb != 1 {
			yi, ok2 = mulInt64(yi, mb)
		}
		var r int64
		ok3 := true
		switch op {
		case OpAdd:
			r = xi + yi
			ok3 = (r > xi) == (yi > 0)
		case OpSubtract:
			r = xi - yi
			ok3 = (r < xi) == (yi > 0)
		default:
			r, ok3 = mulInt64(xi, yi)
		}
		if !ok1 || !ok2 || !ok3 {
			buf.Release()
			return nil, false
		}
		out[i] = decimal128.FromI64(r)
	}
	validity, nulls := andValidity(mem, a, b)
	data := array.NewData(dt, n, []*memory.Buffer{validity, buf}, nil, nulls, 0)
	buf.Release()
	if validity != nil {
		validity.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), true
}

// andValidity returns the validity bitmap of rows valid in both a and b (nil: all valid)
// and the number of NULL rows.
func andValidity(mem memory.Allocator, a, b arrow.Array) (*memory.Buffer, int) {
	an, bn := a.NullN(), b.NullN()
	if an == 0 && bn == 0 {
		return nil, 0
	}
	n := a.Len()
	out := memory.NewResizableBuffer(mem)
	out.Resize(int(bitutil.BytesForBits(int64(n))))
	dst := out.Bytes()
	switch {
	case an == 0:
		bitutil.CopyBitmap(b.NullBitmapBytes(), b.Data().Offset(), n, dst, 0)
	case bn == 0:
		bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, dst, 0)
	default:
		bitutil.BitmapAnd(a.NullBitmapBytes(), b.NullBitmapBytes(), int64(a.Data().Offset()), int64(b.Data().Offset()), dst, 0, int64(n))
	}
	return out, n - bitutil.CountSetBits(dst, 0, n)
}

// NarrowDecimal returns a (decimal128) as type dst, a decimal128 of the same scale and a
// smaller precision, without copying its values, when every non-NULL value fits dst's
// precision; ok is false otherwise (the caller then casts, which reports the overflow). It
// does not take ownership of a; the result shares a's buffers.
func NarrowDecimal(a arrow.Array, dst arrow.DataType) (arrow.Array, bool) {
	src, ok1 := a.DataType().(*arrow.Decimal128Type)
	d, ok2 := dst.(*arrow.Decimal128Type)
	if !ok1 || !ok2 || src.Scale != d.Scale || a.DataType().ID() == arrow.NULL {
		return nil, false
	}
	vs := arrow.GetValues[decimal128.Num](a.Data(), 1)
	var bits []byte
	off := a.Data().Offset()
	if a.NullN() > 0 {
		bits = a.NullBitmapBytes()
	}
	if d.Precision <= 18 {
		limit := pow10Int64[d.Precision]
		for i, v := range vs {
			if bits != nil && !bitutil.BitIsSet(bits, off+i) {
				continue
			}
			if !fitsInt64(v) {
				return nil, false
			}
			if x := int64(v.LowBits()); x >= limit || x <= -limit {
				return nil, false
			}
		}
	} else {
		for i, v := range vs {
			if (bits == nil || bitutil.BitIsSet(bits, off+i)) && !v.FitsInPrecision(d.Precision) {
				return nil, false
			}
		}
	}
	data := array.NewData(dst, a.Len(), a.Data().Buffers(), nil, a.NullN(), off)
	defer data.Release()
	return array.MakeFromData(data), true
}
