package ops

import (
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
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
