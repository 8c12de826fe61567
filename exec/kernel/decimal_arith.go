package kernel

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// maxDecimalDigits is the widest decimal128 precision.
const maxDecimalDigits = 38

// DecimalArith computes a op b exactly for two decimal128 arrays (of any precisions and
// scales), the way DuckDB does: addition and subtraction at the larger scale, multiplication
// at the sum of the scales. The result is decimal(38, that scale); the caller narrows it to
// the planned precision (a checked cast). A result beyond 38 digits is DuckDB's OutOfRange
// overflow error. ok is false when a or b is not decimal128.
func DecimalArith(mem memory.Allocator, op int, a, b arrow.Array) (out arrow.Array, ok bool, err error) {
	da, aok := a.DataType().(*arrow.Decimal128Type)
	db, bok := b.DataType().(*arrow.Decimal128Type)
	if !aok || !bok {
		return nil, false, nil
	}
	scale := max(da.Scale, db.Scale)
	var shiftA, shiftB int32
	if op == OpMultiply {
		scale = da.Scale + db.Scale
	} else {
		shiftA, shiftB = scale-da.Scale, scale-db.Scale
	}
	if scale > maxDecimalDigits {
		return nil, true, dberr.New(dberr.OutOfRange, "decimal %s: result scale %d exceeds %d", opNames[op].noun, scale, maxDecimalDigits)
	}
	dt := &arrow.Decimal128Type{Precision: maxDecimalDigits, Scale: scale}
	if out, ok := decimalArithFast(mem, op, a, b, shiftA, shiftB, dt); ok {
		return out, true, nil
	}
	av := arrow.GetValues[decimal128.Num](a.Data(), 1)
	bv := arrow.GetValues[decimal128.Num](b.Data(), 1)
	res := NewFixed[decimal128.Num](mem, dt, a.Len())
	for i := range a.Len() {
		if !IsValid(a, i) || !IsValid(b, i) {
			res.SetNull(i)
			continue
		}
		v, err := decimalOp(op, av[i], bv[i], shiftA, shiftB)
		if err != nil {
			res.Release()
			return nil, true, err
		}
		res.Values[i] = v
	}
	return res.Finish(), true, nil
}

// decimalOp is one row of DecimalArith: x and y are first rescaled by 10^shiftX / 10^shiftY.
func decimalOp(op int, x, y decimal128.Num, shiftX, shiftY int32) (decimal128.Num, error) {
	if fitsInt64(x) && fitsInt64(y) && shiftX == 0 && shiftY == 0 {
		xi, yi := int64(x.LowBits()), int64(y.LowBits())
		switch op {
		case OpAdd:
			return decimal128.FromI64(xi).Add(decimal128.FromI64(yi)), nil
		case OpSubtract:
			return decimal128.FromI64(xi).Sub(decimal128.FromI64(yi)), nil
		default:
			if r, err := checkedMul(xi, yi); err == nil {
				return r, nil
			}
		}
	}
	bx, by := x.BigInt(), y.BigInt()
	if shiftX > 0 {
		bx.Mul(bx, pow10Big(shiftX))
	}
	if shiftY > 0 {
		by.Mul(by, pow10Big(shiftY))
	}
	switch op {
	case OpAdd:
		bx.Add(bx, by)
	case OpSubtract:
		bx.Sub(bx, by)
	default:
		bx.Mul(bx, by)
	}
	if new(big.Int).Abs(bx).Cmp(pow10Big(maxDecimalDigits)) >= 0 {
		return decimal128.Num{}, dberr.New(dberr.OutOfRange, "Overflow in %s of DECIMAL(38) (%s %s %s)!",
			opNames[op].noun, x.BigInt(), opNames[op].sym, y.BigInt())
	}
	return decimal128.FromBigInt(bx), nil
}

// checkedMul multiplies two int64s into a decimal128 when the product fits in 64 bits.
func checkedMul(x, y int64) (decimal128.Num, error) {
	r := x * y
	if x != 0 && (r/x != y || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64)) {
		return decimal128.Num{}, errOverflow64
	}
	return decimal128.FromI64(r), nil
}

var errOverflow64 = dberr.New(dberr.OutOfRange, "int64 overflow")

func fitsInt64(x decimal128.Num) bool {
	lo, hi := x.LowBits(), x.HighBits()
	return (hi == 0 && lo < 1<<63) || (hi == -1 && lo >= 1<<63)
}

func pow10Big(n int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
