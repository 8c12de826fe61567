package kernel

import (
	"cmp"
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// rowCompare compares row i of a with row i of b (two non-NULL values of type dt). Floats
// order NaN above every number and equal to itself, as DuckDB does.
type rowCompare func(a, b arrow.Array, i int) int

func compareFixed[T signed | unsigned](a, b arrow.Array, i int) int {
	return cmp.Compare(arrow.GetValues[T](a.Data(), 1)[i], arrow.GetValues[T](b.Data(), 1)[i])
}

func compareFloats[T float](a, b arrow.Array, i int) int {
	x, y := float64(arrow.GetValues[T](a.Data(), 1)[i]), float64(arrow.GetValues[T](b.Data(), 1)[i])
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn || yn:
		return boolCompare(xn, yn)
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func boolCompare(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// newRowCompare returns the comparison for values of type dt.
func newRowCompare(dt arrow.DataType) (rowCompare, error) {
	switch dt.ID() {
	case arrow.INT8:
		return compareFixed[int8], nil
	case arrow.INT16:
		return compareFixed[int16], nil
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return compareFixed[int32], nil
	case arrow.INT64, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME64, arrow.DURATION:
		return compareFixed[int64], nil
	case arrow.UINT8:
		return compareFixed[uint8], nil
	case arrow.UINT16:
		return compareFixed[uint16], nil
	case arrow.UINT32:
		return compareFixed[uint32], nil
	case arrow.UINT64:
		return compareFixed[uint64], nil
	case arrow.FLOAT32:
		return compareFloats[float32], nil
	case arrow.FLOAT64:
		return compareFloats[float64], nil
	case arrow.DECIMAL128:
		return func(a, b arrow.Array, i int) int {
			return a.(*array.Decimal128).Value(i).Cmp(b.(*array.Decimal128).Value(i))
		}, nil
	case arrow.BOOL:
		return func(a, b arrow.Array, i int) int {
			return boolCompare(a.(*array.Boolean).Value(i), b.(*array.Boolean).Value(i))
		}, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return func(a, b arrow.Array, i int) int {
			x, _ := strGetter(a)
			y, _ := strGetter(b)
			return strings.Compare(x(i), y(i))
		}, nil
	}
	return nil, dberr.NotSupported("comparison of " + dt.String())
}

// extremeFunc is greatest (dir 1) or least (dir -1): NULL arguments are skipped; the
// result is NULL only when every argument is NULL.
func extremeFunc(dir int) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		var typed []arrow.Array
		for _, a := range args {
			if a.DataType().ID() != arrow.NULL {
				typed = append(typed, a)
			}
		}
		if len(typed) == 0 {
			args[0].Retain()
			return args[0], nil
		}
		compare, err := newRowCompare(typed[0].DataType())
		if err != nil {
			return nil, err
		}
		n := typed[0].Len()
		idx := NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, n)
		for i := range n {
			best := 0
			for k := 1; k < len(typed); k++ {
				switch {
				case !IsValid(typed[k], i):
				case !IsValid(typed[best], i) || dir*compare(typed[k], typed[best], i) > 0:
					best = k
				}
			}
			idx.Values[i] = int32(best*n + i)
		}
		return takeFromConcat(mem, typed, idx.Finish())
	}
}

// takeFromConcat returns the rows at idx (owned) of the concatenation of parts.
func takeFromConcat(mem memory.Allocator, parts []arrow.Array, idx arrow.Array) (arrow.Array, error) {
	defer idx.Release()
	all, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "concatenate arguments")
	}
	defer all.Release()
	out, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), all, idx)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "take")
	}
	return out, nil
}

// nullifFunc is nullif(a, b): NULL where a equals b, else a.
func nullifFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	a, b := args[0], args[1]
	if a.DataType().ID() == arrow.NULL || b.DataType().ID() == arrow.NULL {
		a.Retain()
		return a, nil
	}
	compare, err := newRowCompare(a.DataType())
	if err != nil {
		return nil, err
	}
	keep := func(i int) bool {
		return IsValid(a, i) && (!IsValid(b, i) || compare(a, b, i) != 0)
	}
	return withValidity(mem, a, keep), nil
}

// withValidity returns a with the rows where keep is false set to NULL. It shares a's
// value buffers (a must be of a flat, non-nested type).
func withValidity(mem memory.Allocator, a arrow.Array, keep func(i int) bool) arrow.Array {
	d := a.Data()
	off, n := d.Offset(), d.Len()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	clear(bits.Bytes())
	nulls := 0
	for i := range n {
		if keep(i) {
			bitutil.SetBit(bits.Bytes(), off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bits}, d.Buffers()[1:]...)
	data := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	bits.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

// distinctFunc is IS DISTINCT FROM (distinct true) or IS NOT DISTINCT FROM: NULL equals
// NULL, the result is never NULL.
func distinctFunc(distinct bool) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		a, b := args[0], args[1]
		n := a.Len()
		var compare rowCompare
		if a.DataType().ID() != arrow.NULL && b.DataType().ID() != arrow.NULL {
			var err error
			if compare, err = newRowCompare(a.DataType()); err != nil {
				return nil, err
			}
		}
		out := NewBools(mem, n)
		for i := range n {
			va, vb := IsValid(a, i), IsValid(b, i)
			same := va == vb
			if va && vb {
				same = compare(a, b, i) == 0
			}
			out.Set(i, same != distinct)
		}
		return out.Finish(), nil
	}
}
