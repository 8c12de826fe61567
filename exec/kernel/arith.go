package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type float interface{ ~float32 | ~float64 }

type number interface{ signed | unsigned | float }

// ErrDivisionByZero is the error for an integer division or modulus by zero. DuckDB raises
// it unless the expression is wrapped in TRY.
func errDivisionByZero(op string) error {
	return dberr.New(dberr.InvalidInput, "Division by zero in expression (%s)", op)
}

// TypeName is the DuckDB physical type name used in overflow messages (INT64, DOUBLE, ...).
func TypeName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return fmt.Sprintf("%s%d", map[bool]string{true: "INT", false: "UINT"}[isSigned(dt.ID())], dt.(arrow.FixedWidthDataType).BitWidth())
	case arrow.FLOAT32:
		return "FLOAT"
	case arrow.FLOAT64:
		return "DOUBLE"
	default:
		return dt.String()
	}
}

func isSigned(id arrow.Type) bool {
	return id == arrow.INT8 || id == arrow.INT16 || id == arrow.INT32 || id == arrow.INT64
}

// binaryOp applies op to every row where both inputs are valid; other rows are NULL.
func binaryOp[T number](mem memory.Allocator, a, b arrow.Array, op func(x, y T) (T, error)) (arrow.Array, error) {
	n := a.Len()
	av := arrow.GetValues[T](a.Data(), 1)
	bv := arrow.GetValues[T](b.Data(), 1)
	out := NewFixed[T](mem, a.DataType(), n)
	for i := range n {
		if !IsValid(a, i) || !IsValid(b, i) {
			out.SetNull(i)
			continue
		}
		v, err := op(av[i], bv[i])
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Values[i] = v
	}
	return out.Finish(), nil
}

// unary applies op to every valid row.
func unary[T number](mem memory.Allocator, a arrow.Array, op func(x T) (T, error)) (arrow.Array, error) {
	n := a.Len()
	av := arrow.GetValues[T](a.Data(), 1)
	out := NewFixed[T](mem, a.DataType(), n)
	for i := range n {
		if !IsValid(a, i) {
			out.SetNull(i)
			continue
		}
		v, err := op(av[i])
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Values[i] = v
	}
	return out.Finish(), nil
}

func divSigned[T signed](x, y T) (T, error) {
	if y == 0 {
		return 0, errDivisionByZero(fmt.Sprintf("%d // %d", x, y))
	}
	if y == -1 && x < 0 && -x == x {
		return 0, dberr.New(dberr.OutOfRange, "Overflow in division of %d / %d", x, y)
	}
	return x / y, nil
}

func divUnsigned[T unsigned](x, y T) (T, error) {
	if y == 0 {
		return 0, errDivisionByZero(fmt.Sprintf("%d // %d", x, y))
	}
	return x / y, nil
}

func divFloat[T float](x, y T) (T, error) { return x / y, nil }

func modInt[T signed | unsigned](x, y T) (T, error) {
	if y == 0 {
		return 0, errDivisionByZero(fmt.Sprintf("%d %% %d", x, y))
	}
	return x % y, nil // Go defines MinInt % -1 == 0, as DuckDB does
}

func modFloat[T float](x, y T) (T, error) { return T(math.Mod(float64(x), float64(y))), nil }

func negSigned[T signed](x T) (T, error) {
	if x < 0 && -x == x {
		return 0, dberr.New(dberr.OutOfRange, "Overflow in negation of integer %d", x)
	}
	return -x, nil
}

func negFloat[T float](x T) (T, error) { return -x, nil }

// Divide divides a by b row by row. Integers truncate toward zero and fail on a zero
// divisor (DuckDB's "Division by zero" error) and on MinInt / -1; floats follow IEEE 754
// (x/0 is ±Inf, 0/0 is NaN), as DuckDB's DOUBLE division does. NULL in, NULL out.
func Divide(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return binaryOp(mem, a, b, divSigned[int8])
	case arrow.INT16:
		return binaryOp(mem, a, b, divSigned[int16])
	case arrow.INT32:
		return binaryOp(mem, a, b, divSigned[int32])
	case arrow.INT64:
		return binaryOp(mem, a, b, divSigned[int64])
	case arrow.UINT8:
		return binaryOp(mem, a, b, divUnsigned[uint8])
	case arrow.UINT16:
		return binaryOp(mem, a, b, divUnsigned[uint16])
	case arrow.UINT32:
		return binaryOp(mem, a, b, divUnsigned[uint32])
	case arrow.UINT64:
		return binaryOp(mem, a, b, divUnsigned[uint64])
	case arrow.FLOAT32:
		return binaryOp(mem, a, b, divFloat[float32])
	case arrow.FLOAT64:
		return binaryOp(mem, a, b, divFloat[float64])
	}
	return nil, dberr.NotSupported("divide on " + a.DataType().String())
}

// Modulus computes a % b row by row with the sign of the dividend (DuckDB's and Go's
// definition). Integers fail on a zero divisor; floats use fmod (x % 0 is NaN).
func Modulus(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return binaryOp(mem, a, b, modInt[int8])
	case arrow.INT16:
		return binaryOp(mem, a, b, modInt[int16])
	case arrow.INT32:
		return binaryOp(mem, a, b, modInt[int32])
	case arrow.INT64:
		return binaryOp(mem, a, b, modInt[int64])
	case arrow.UINT8:
		return binaryOp(mem, a, b, modInt[uint8])
	case arrow.UINT16:
		return binaryOp(mem, a, b, modInt[uint16])
	case arrow.UINT32:
		return binaryOp(mem, a, b, modInt[uint32])
	case arrow.UINT64:
		return binaryOp(mem, a, b, modInt[uint64])
	case arrow.FLOAT32:
		return binaryOp(mem, a, b, modFloat[float32])
	case arrow.FLOAT64:
		return binaryOp(mem, a, b, modFloat[float64])
	case arrow.DECIMAL128:
		return decimalModulus(mem, a, b)
	}
	return nil, dberr.NotSupported("modulus on " + a.DataType().String())
}

// Negate computes -a row by row; negating the smallest integer is an OutOfRange error.
func Negate(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return unary(mem, a, negSigned[int8])
	case arrow.INT16:
		return unary(mem, a, negSigned[int16])
	case arrow.INT32:
		return unary(mem, a, negSigned[int32])
	case arrow.INT64:
		return unary(mem, a, negSigned[int64])
	case arrow.FLOAT32:
		return unary(mem, a, negFloat[float32])
	case arrow.FLOAT64:
		return unary(mem, a, negFloat[float64])
	}
	return nil, dberr.NotSupported("negate on " + a.DataType().String())
}
