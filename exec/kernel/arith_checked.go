package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// Arithmetic ops for Add, Subtract and Multiply.
const (
	OpAdd = iota
	OpSubtract
	OpMultiply
)

var opNames = [...]struct{ noun, sym string }{
	OpAdd: {"addition", "+"}, OpSubtract: {"subtraction", "-"}, OpMultiply: {"multiplication", "*"},
}

func overflow(dt arrow.DataType, op int, x, y any) error {
	return dberr.New(dberr.OutOfRange, "Overflow in %s of %s (%v %s %v)!", opNames[op].noun, TypeName(dt), x, opNames[op].sym, y)
}

func signedOp[T signed](dt arrow.DataType, op int) func(x, y T) (T, error) {
	var minT T = 1
	for minT<<1 != 0 {
		minT <<= 1
	}
	return func(x, y T) (T, error) {
		var r T
		var bad bool
		switch op {
		case OpAdd:
			r = x + y
			bad = (x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0)
		case OpSubtract:
			r = x - y
			bad = (y < 0 && r < x) || (y > 0 && r > x)
		default:
			r = x * y
			bad = x != 0 && (r/x != y || (x == -1 && y == minT) || (y == -1 && x == minT))
		}
		if bad {
			return 0, overflow(dt, op, x, y)
		}
		return r, nil
	}
}

func unsignedOp[T unsigned](dt arrow.DataType, op int) func(x, y T) (T, error) {
	return func(x, y T) (T, error) {
		var r T
		var bad bool
		switch op {
		case OpAdd:
			r = x + y
			bad = r < x
		case OpSubtract:
			r = x - y
			bad = y > x
		default:
			r = x * y
			bad = x != 0 && r/x != y
		}
		if bad {
			return 0, overflow(dt, op, x, y)
		}
		return r, nil
	}
}

func floatOp[T float](op int) func(x, y T) (T, error) {
	return func(x, y T) (T, error) {
		switch op {
		case OpAdd:
			return x + y, nil
		case OpSubtract:
			return x - y, nil
		}
		return x * y, nil
	}
}

// Arith computes a op b row by row for integer and float arrays of one type. Integer
// overflow is DuckDB's OutOfRange error ("Overflow in addition of INT64 (x + y)!"); it is
// checked on valid rows only, whatever lies under NULL slots. It returns ok == false for
// other types (decimals go to arrow's kernels).
func Arith(mem memory.Allocator, op int, a, b arrow.Array) (out arrow.Array, ok bool, err error) {
	dt := a.DataType()
	switch dt.ID() {
	case arrow.INT8:
		out, err = binaryOp(mem, a, b, signedOp[int8](dt, op))
	case arrow.INT16:
		out, err = binaryOp(mem, a, b, signedOp[int16](dt, op))
	case arrow.INT32:
		out, err = binaryOp(mem, a, b, signedOp[int32](dt, op))
	case arrow.INT64:
		out, err = binaryOp(mem, a, b, signedOp[int64](dt, op))
	case arrow.UINT8:
		out, err = binaryOp(mem, a, b, unsignedOp[uint8](dt, op))
	case arrow.UINT16:
		out, err = binaryOp(mem, a, b, unsignedOp[uint16](dt, op))
	case arrow.UINT32:
		out, err = binaryOp(mem, a, b, unsignedOp[uint32](dt, op))
	case arrow.UINT64:
		out, err = binaryOp(mem, a, b, unsignedOp[uint64](dt, op))
	case arrow.FLOAT32:
		out, err = binaryOp(mem, a, b, floatOp[float32](op))
	case arrow.FLOAT64:
		out, err = binaryOp(mem, a, b, floatOp[float64](op))
	default:
		return nil, false, nil
	}
	return out, true, err
}
