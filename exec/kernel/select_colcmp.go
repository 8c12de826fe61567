package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ColCompare is a comparison of two columns of the same integer-like type (int8 to int64,
// date32, or decimal128 of the same precision and scale): TPC-H's l_commitdate <
// l_receiptdate. Its Select tests only the rows of a selection vector, so in a chain of
// conjuncts it costs only the rows the earlier ones kept; NULL rows never pass.
type ColCompare struct {
	typ  arrow.DataType
	keep uint8 // bit c+1 set when the comparison holds for cmp(left, right) == c
}

// NewColCompare returns left fn right for two columns of type typ; fn is equal, not_equal,
// lt, lte, gt or gte. ok is false for other types or functions.
func NewColCompare(typ arrow.DataType, fn string) (ColCompare, bool) {
	switch typ.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DECIMAL128:
	default:
		return ColCompare{}, false
	}
	const lt, eq, gt = 1 << 0, 1 << 1, 1 << 2
	keep, ok := map[string]uint8{"equal": eq, "not_equal": lt | gt, "lt": lt, "lte": lt | eq, "gt": gt, "gte": gt | eq}[fn]
	return ColCompare{typ: typ, keep: keep}, ok
}

// Select keeps the rows where left fn right is TRUE: of every row when all is set (sel is
// then only a buffer), else of the rows in sel, narrowed in place. ok is false (sel
// untouched) when either array does not have the comparison's type or their lengths differ.
func (c ColCompare) Select(left, right arrow.Array, sel []int32, all bool) (out []int32, ok bool) {
	if !arrow.TypeEqual(left.DataType(), c.typ) || !arrow.TypeEqual(right.DataType(), c.typ) || left.Len() != right.Len() {
		return nil, false
	}
	n := left.Len()
	if all {
		sel = Iota32(sel, n) // the column tests cost more than writing the positions
	}
	if left.NullN() == n || right.NullN() == n {
		return sel[:0], true
	}
	l, r := left.Data(), right.Data()
	switch c.typ.ID() {
	case arrow.INT8:
		out = selectCols(c.keep, arrow.GetValues[int8](l, 1), arrow.GetValues[int8](r, 1), sel)
	case arrow.INT16:
		out = selectCols(c.keep, arrow.GetValues[int16](l, 1), arrow.GetValues[int16](r, 1), sel)
	case arrow.INT32, arrow.DATE32:
		out = selectCols(c.keep, arrow.GetValues[int32](l, 1), arrow.GetValues[int32](r, 1), sel)
	case arrow.INT64:
		out = selectCols(c.keep, arrow.GetValues[int64](l, 1), arrow.GetValues[int64](r, 1), sel)
	case arrow.DECIMAL128:
		out = selectDecimalCols(c.keep, arrow.GetValues[decimal128.Num](l, 1), arrow.GetValues[decimal128.Num](r, 1), sel)
	}
	if left.NullN() > 0 {
		out = dropNulls(left, out)
	}
	if right.NullN() > 0 {
		out = dropNulls(right, out)
	}
	return out, true
}

// selectCols narrows sel to the rows where keep holds for the comparison of a[i] with b[i].
func selectCols[T int8 | int16 | int32 | int64](keep uint8, a, b []T, sel []int32) []int32 {
	k := 0
	for _, i := range sel {
		x, y := a[i], b[i]
		c := 1 + b2i(x > y) - b2i(x < y) // 0, 1 or 2 for <, =, >
		sel[k] = i
		k += int(keep>>uint(c)) & 1
	}
	return sel[:k]
}

// selectDecimalCols is selectCols over decimal128 values of the same scale.
func selectDecimalCols(keep uint8, a, b []decimal128.Num, sel []int32) []int32 {
	k := 0
	for _, i := range sel {
		c := 1 + a[i].Cmp(b[i])
		sel[k] = i
		k += int(keep>>uint(c)) & 1
	}
	return sel[:k]
}
