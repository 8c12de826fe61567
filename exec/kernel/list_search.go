package kernel

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// The list search functions, with DuckDB's semantics (planner/functions list_funcs.go
// types them; both sides always share one element type). Elements compare by their
// KeyEncoder encodings: every element and needle is encoded once per batch, then rows
// compare byte strings, with no per-row allocation. exec/expr list_funcs.go registers
// them.

// ArrayHasAny is array_has_any(a, b): whether some non-NULL element of b is in a; NULL
// when a or b is NULL.
var ArrayHasAny = listHasFunc(false)

// ArrayHasAll is array_has_all(a, b): whether every non-NULL element of b is in a; NULL
// when a or b is NULL.
var ArrayHasAll = listHasFunc(true)

// listOf returns args[i] as a list-like array.
func listOf(name string, args []arrow.Array, i int) (listLike, error) {
	l, ok := args[i].(listLike)
	if !ok {
		return nil, dberr.New(dberr.Internal, "%s: argument %d is %s, not a list", name, i+1, args[i].DataType())
	}
	return l, nil
}

// listLike is the part of array.ListLike the kernels use.
type listLike interface {
	arrow.Array
	ListValues() arrow.Array
	ValueOffsets(i int) (start, end int64)
}

// encodeAll encodes every value of arr into k.
func encodeAll(k *RowKeys, arr arrow.Array) error {
	if err := k.Encode([]arrow.Array{arr}, arr.Len()); err != nil {
		return dberr.Wrap(dberr.NotImplemented, err, "compare list elements of type %s", arr.DataType())
	}
	return nil
}

// ListLength is len(l): the number of elements of each list, NULL for a NULL list.
func ListLength(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	l, err := listOf("len", args, 0)
	if err != nil {
		return nil, err
	}
	return buildInt64s(mem, args, l.Len(), func(i int) (int64, error) {
		lo, hi := l.ValueOffsets(i)
		return hi - lo, nil
	})
}

// findIn returns the 0-based position within row i of l of the first element whose key is
// key, or -1.
func findIn(l listLike, elems *RowKeys, i int, key []byte) int64 {
	lo, hi := l.ValueOffsets(i)
	for j := lo; j < hi; j++ {
		if bytes.Equal(elems.Key(int(j)), key) {
			return j - lo
		}
	}
	return -1
}

// listAndKeys checks the list argument and encodes its elements and the second argument's
// values (needles, or the elements of a second list when inner is true).
func listAndKeys(name string, args []arrow.Array, inner bool) (l listLike, elems, needles *RowKeys, err error) {
	if l, err = listOf(name, args, 0); err != nil {
		return nil, nil, nil, err
	}
	second := args[1]
	if second.Len() != l.Len() {
		return nil, nil, nil, dberr.New(dberr.Internal, "%s: arguments of %d and %d rows", name, l.Len(), second.Len())
	}
	if inner {
		r, err := listOf(name, args, 1)
		if err != nil {
			return nil, nil, nil, err
		}
		second = r.ListValues()
	}
	elems, needles = &RowKeys{}, &RowKeys{}
	if err := encodeAll(elems, l.ListValues()); err != nil {
		return nil, nil, nil, err
	}
	if err := encodeAll(needles, second); err != nil {
		return nil, nil, nil, err
	}
	return l, elems, needles, nil
}

// ListContains is list_contains(l, x): whether some element of l equals x; NULL when l or
// x is NULL (a NULL element never matches).
func ListContains(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	l, elems, needles, err := listAndKeys("list_contains", args, false)
	if err != nil {
		return nil, err
	}
	return buildBools(mem, args, l.Len(), func(i int) (bool, error) {
		return findIn(l, elems, i, needles.Key(i)) >= 0, nil
	})
}

// ListPosition is list_position(l, x): the 1-based INTEGER position of the first element
// of l equal to x, NULL when there is none or l is NULL. A NULL x finds the first NULL
// element (DuckDB's list_position([1, NULL], NULL) is 2).
func ListPosition(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	l, elems, needles, err := listAndKeys("list_position", args, false)
	if err != nil {
		return nil, err
	}
	n := l.Len()
	out := NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, n)
	for i := range n {
		p := int64(-1)
		if IsValid(l, i) {
			p = findIn(l, elems, i, needles.Key(i))
		}
		if p < 0 {
			out.SetNull(i)
			continue
		}
		out.Values[i] = int32(p + 1)
	}
	return out.Finish(), nil
}

// listHasFunc is array_has_any(a, b) (all false) or array_has_all(a, b) (all true):
// whether some / every non-NULL element of b is an element of a; NULL when a or b is NULL.
func listHasFunc(all bool) ScalarFunc {
	name := "array_has_any"
	if all {
		name = "array_has_all"
	}
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		l, elems, needles, err := listAndKeys(name, args, true)
		if err != nil {
			return nil, err
		}
		r := args[1].(listLike)
		inner := r.ListValues()
		return buildBools(mem, args, l.Len(), func(i int) (bool, error) {
			lo, hi := r.ValueOffsets(i)
			for j := lo; j < hi; j++ {
				if !IsValid(inner, int(j)) {
					continue
				}
				if found := findIn(l, elems, i, needles.Key(int(j))) >= 0; found != all {
					return found, nil
				}
			}
			return all, nil
		})
	}
}
