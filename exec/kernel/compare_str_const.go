package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CompareStringConst compares every value of a, a string or large_string array, with the
// constant c, byte-wise (as arrow's kernels and DuckDB's default collation), with one of
// arrow's comparison names (see CompareFast): a op c. A row is NULL when a's is. It spares
// the caller a broadcast of the constant to a's length; ok is false for other types or
// names, and the caller uses the general path then.
func CompareStringConst(mem memory.Allocator, fn string, a arrow.Array, c string) (out arrow.Array, ok bool) {
	op, known := compareOps[fn]
	if !known {
		return nil, false
	}
	res := NewBools(mem, a.Len())
	dst := res.vals.Bytes()
	switch s := a.(type) {
	case *array.String:
		compareConstInto(op, s, c, dst)
	case *array.LargeString:
		compareConstInto(op, s, c, dst)
	default:
		res.Release()
		return nil, false
	}
	validity, nulls := andValidity(mem, a, a)
	data := array.NewData(arrow.FixedWidthTypes.Boolean, a.Len(), []*memory.Buffer{validity, res.vals}, nil, nulls, 0)
	res.vals.Release()
	if validity != nil {
		validity.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), true
}

// stringValues is a string array of either offset width.
type stringValues interface {
	Len() int
	Value(i int) string
}

// compareConstInto sets bit i of dst (zeroed) when a.Value(i) op c.
func compareConstInto(op int, a stringValues, c string, dst []byte) {
	switch op {
	case 0:
		setWhereConst(dst, a, c, eqOp[string]{})
	case 1:
		setWhereConst(dst, a, c, neOp[string]{})
	case 2:
		setWhereConst(dst, a, c, ltOp[string]{})
	case 3:
		setWhereConst(dst, a, c, leOp[string]{})
	case 4:
		setWhereConst(dst, a, c, ltOp[string]{}.flip())
	default:
		setWhereConst(dst, a, c, leOp[string]{}.flip())
	}
}

// setWhereConst sets bit i of dst when op.test(a.Value(i), c), a byte at a time.
func setWhereConst[O cmpOp[string]](dst []byte, a stringValues, c string, op O) {
	n := a.Len()
	for base := 0; base < n; base += 8 {
		var v byte
		for k := range min(8, n-base) {
			if op.test(a.Value(base+k), c) {
				v |= 1 << k
			}
		}
		dst[base/8] = v
	}
}
