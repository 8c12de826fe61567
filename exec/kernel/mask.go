package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// TruthMasks splits a boolean condition into two NULL-free masks: isTrue (the condition is
// TRUE) and notTrue (FALSE or NULL), and returns how many rows are TRUE. The caller releases
// both masks.
func TruthMasks(mem memory.Allocator, cond arrow.Array) (isTrue, notTrue arrow.Array, nTrue int, err error) {
	b, ok := cond.(*array.Boolean)
	if !ok {
		if cond.DataType().ID() != arrow.NULL {
			return nil, nil, 0, dberr.New(dberr.Internal, "condition has type %s, want boolean", cond.DataType())
		}
	}
	n := cond.Len()
	t, f := NewBools(mem, n), NewBools(mem, n)
	for i := range n {
		v := b != nil && IsValid(cond, i) && b.Value(i)
		t.Set(i, v)
		f.Set(i, !v)
		if v {
			nTrue++
		}
	}
	return t.Finish(), f.Finish(), nTrue, nil
}

// Iota returns the int32 array 0, 1, ..., n-1.
func Iota(mem memory.Allocator, n int) arrow.Array {
	out := NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, n)
	for i := range out.Values {
		out.Values[i] = int32(i)
	}
	return out.Finish()
}

// IsNull returns, per row, whether arr is NULL (negate: whether it is not). The result has
// no NULLs. (arrow-go v18.8.0's is_null ignores the offset of sliced arrays.)
func IsNull(mem memory.Allocator, arr arrow.Array, negate bool) arrow.Array {
	n := arr.Len()
	out := NewBools(mem, n)
	for i := range n {
		out.Set(i, IsValid(arr, i) == negate)
	}
	return out.Finish()
}

// Not returns the logical negation of a boolean array; NULL stays NULL.
func Not(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	n := arr.Len()
	b, ok := arr.(*array.Boolean)
	if !ok && arr.DataType().ID() != arrow.NULL {
		return nil, dberr.New(dberr.Internal, "not: argument has type %s, want boolean", arr.DataType())
	}
	out := NewBools(mem, n)
	for i := range n {
		if b == nil || !IsValid(arr, i) {
			out.SetNull(i)
			continue
		}
		out.Set(i, !b.Value(i))
	}
	return out.Finish(), nil
}

// MaskIndices returns the int32 positions of the rows where mask (a NULL-free boolean
// array) is true. Selecting rows by take with these indices replaces arrow's filter, whose
// boolean kernel returns wrong values in arrow-go v18.8.0.
func MaskIndices(mem memory.Allocator, mask arrow.Array, nTrue int) (arrow.Array, error) {
	b, ok := mask.(*array.Boolean)
	if !ok {
		return nil, dberr.New(dberr.Internal, "mask has type %s, want boolean", mask.DataType())
	}
	out := NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, nTrue)
	j := 0
	for i := range b.Len() {
		if b.Value(i) {
			if j == nTrue {
				out.Release()
				return nil, dberr.New(dberr.Internal, "mask has more than %d true rows", nTrue)
			}
			out.Values[j] = int32(i)
			j++
		}
	}
	if j != nTrue {
		out.Release()
		return nil, dberr.New(dberr.Internal, "mask has %d true rows, want %d", j, nTrue)
	}
	return out.Finish(), nil
}

// CompareBools compares two boolean arrays (false < true) with one of arrow's comparison
// function names: equal, not_equal, less, less_equal, greater, greater_equal. (arrow-go
// v18.8.0 has no ordering kernels for booleans.)
func CompareBools(mem memory.Allocator, fn string, a, b arrow.Array) (arrow.Array, error) {
	ab, ok1 := a.(*array.Boolean)
	bb, ok2 := b.(*array.Boolean)
	if !ok1 || !ok2 {
		return nil, dberr.New(dberr.Internal, "%s: want boolean arguments, got %s and %s", fn, a.DataType(), b.DataType())
	}
	cmp := map[string]func(x, y int) bool{
		"equal": func(x, y int) bool { return x == y }, "not_equal": func(x, y int) bool { return x != y },
		"less": func(x, y int) bool { return x < y }, "less_equal": func(x, y int) bool { return x <= y },
		"greater": func(x, y int) bool { return x > y }, "greater_equal": func(x, y int) bool { return x >= y },
	}[fn]
	if cmp == nil {
		return nil, dberr.New(dberr.Internal, "unknown comparison %s", fn)
	}
	toInt := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	out := NewBools(mem, a.Len())
	for i := range a.Len() {
		if !IsValid(a, i) || !IsValid(b, i) {
			out.SetNull(i)
			continue
		}
		out.Set(i, cmp(toInt(ab.Value(i)), toInt(bb.Value(i))))
	}
	return out.Finish(), nil
}
