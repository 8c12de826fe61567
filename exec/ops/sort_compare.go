package ops

import (
	"bytes"
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// rowComparator compares two rows of one sort key column; it orders values only (NULLs
// are handled by keyComparator).
type rowComparator func(i, j int) int

// valueComparator returns the comparator for arr's values. Floats order NaN above every
// other value, as DuckDB does.
func valueComparator(arr arrow.Array) (rowComparator, error) {
	if arr.DataType().ID() == arrow.NULL {
		return func(int, int) int { return 0 }, nil // never called: every row is NULL
	}
	if kernel.IsNested(arr.DataType()) { // structs and lists: DuckDB's order, NULLs inside last
		return kernel.NestedComparator(arr, arr)
	}
	k, ok := kindOf(arr.DataType())
	if !ok {
		return nil, dberr.NotSupported("ORDER BY on type " + arr.DataType().String())
	}
	switch k {
	case kindSigned:
		get := signedGetter(arr)
		return func(i, j int) int { return cmp.Compare(get(i), get(j)) }, nil
	case kindUnsigned:
		get := unsignedGetter(arr)
		return func(i, j int) int { return cmp.Compare(get(i), get(j)) }, nil
	case kindFloat:
		get := floatGetter(arr)
		return func(i, j int) int { return compareFloat(get(i), get(j)) }, nil
	case kindString:
		get := stringGetter(arr)
		return func(i, j int) int { return cmp.Compare(get(i), get(j)) }, nil
	case kindBool:
		get := boolGetter(arr)
		return func(i, j int) int { return compareBool(get(i), get(j)) }, nil
	}
	get := decimalGetter(arr)
	return func(i, j int) int { return compareDecimal(get(i), get(j)) }, nil
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return compareBool(an, bn)
	case a == b: // also -0 == 0
		return 0
	case a < b:
		return -1
	}
	return 1
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func compareDecimal(a, b decimal128.Num) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// keyComparator compares rows by one sort key: direction and NULL placement applied.
func keyComparator(arr arrow.Array, key plan.SortKey) (rowComparator, error) {
	if c := fastKeyComparator(arr, key.Descending); c != nil {
		return c, nil
	}
	values, err := valueComparator(arr)
	if err != nil {
		return nil, err
	}
	nullsFirst := key.NullsFirst
	desc := key.Descending
	return func(i, j int) int {
		vi, vj := kernel.IsValid(arr, i), kernel.IsValid(arr, j)
		switch {
		case !vi && !vj:
			return 0
		case !vi:
			return nullOrder(nullsFirst)
		case !vj:
			return -nullOrder(nullsFirst)
		}
		c := values(i, j)
		if desc {
			return -c
		}
		return c
	}, nil
}

// nullOrder is how a NULL compares with a value.
func nullOrder(nullsFirst bool) int {
	if nullsFirst {
		return -1
	}
	return 1
}

// fastKeyComparator is keyComparator for a key column without NULLs of 32- or 64-bit
// integers, dates or strings (most ORDER BY keys): one closure over the values themselves
// instead of validity checks and getters per comparison (TPC-H q16 sorts 18k rows by two
// strings and two integers). nil for other columns.
func fastKeyComparator(arr arrow.Array, desc bool) rowComparator {
	if arr.NullN() != 0 || arr.Len() == 0 {
		return nil
	}
	switch a := arr.(type) {
	case *array.Int64:
		return orderedComparator(a.Int64Values(), desc)
	case *array.Int32:
		return orderedComparator(a.Int32Values(), desc)
	case *array.Date32:
		return orderedComparator(a.Date32Values(), desc)
	case *array.String:
		offs, data := a.ValueOffsets(), a.ValueBytes() // data starts at offs[0]
		val := func(i int) []byte { return data[offs[i]-offs[0] : offs[i+1]-offs[0]] }
		if desc {
			return func(i, j int) int { return bytes.Compare(val(j), val(i)) }
		}
		return func(i, j int) int { return bytes.Compare(val(i), val(j)) }
	}
	return nil
}

func orderedComparator[T cmp.Ordered](vals []T, desc bool) rowComparator {
	if desc {
		return func(i, j int) int { return cmp.Compare(vals[j], vals[i]) }
	}
	return func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }
}
