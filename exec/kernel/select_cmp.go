package kernel

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// ConstCompare is a comparison of an integer-like column (int8 to int64, date32 or
// decimal128) with a constant, as an inclusive range of the
// column's int64 values [lo, hi] (negated for <>). Its Select narrows a selection vector
// without building a boolean array: one branch-free test per row, the rows written with
// a conditional increment, so a chain of conjuncts costs each one only the rows the
// earlier ones kept.
type ConstCompare struct {
	id     arrow.Type
	lo, hi int64
	neg    bool // keep the rows outside [lo, hi]
	none   bool // no row is TRUE (a NULL constant)
}

// NewConstCompare returns the comparison col fn lit (lit fn col when litLeft) for a column
// of type colType; fn is equal, not_equal, lt, lte, gt or gte. ok is false when the types
// are not supported or the constant has no exact int64 form in the column's units (a
// decimal literal with more digits after the point than the column, say).
func NewConstCompare(colType arrow.DataType, fn string, lit scalar.Scalar, litLeft bool) (ConstCompare, bool) {
	c := ConstCompare{id: colType.ID()}
	if flipCompare(fn) == "" {
		return c, false
	}
	if litLeft {
		fn = flipCompare(fn)
	}
	if !lit.IsValid() {
		c.none = true
		return c, true
	}
	v, ok := constInUnits(colType, lit)
	if !ok || v == math.MinInt64 || v == math.MaxInt64 { // the range ends would be ambiguous
		return c, false
	}
	c.lo, c.hi = math.MinInt64, math.MaxInt64
	switch fn {
	case "equal":
		c.lo, c.hi = v, v
	case "not_equal":
		c.lo, c.hi, c.neg = v, v, true
	case "lt":
		c.hi = v - 1
	case "lte":
		c.hi = v
	case "gt":
		c.lo = v + 1
	case "gte":
		c.lo = v
	default:
		return c, false
	}
	return c, true
}

// flipCompare returns the comparison with its operands swapped ("" if fn is none).
func flipCompare(fn string) string {
	switch fn {
	case "lt":
		return "gt"
	case "lte":
		return "gte"
	case "gt":
		return "lt"
	case "gte":
		return "lte"
	case "equal", "not_equal":
		return fn
	}
	return ""
}

// constInUnits returns lit as an int64 in the units of a column of type colType.
func constInUnits(colType arrow.DataType, lit scalar.Scalar) (int64, bool) {
	switch colType.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return integerConst(lit)
	case arrow.DATE32:
		d, ok := lit.(*scalar.Date32)
		if !ok {
			return 0, false
		}
		return int64(d.Value), true
	case arrow.DECIMAL128:
		return decimalConst(colType.(*arrow.Decimal128Type).Scale, lit)
	}
	return 0, false
}

func integerConst(lit scalar.Scalar) (int64, bool) {
	switch s := lit.(type) {
	case *scalar.Int8:
		return int64(s.Value), true
	case *scalar.Int16:
		return int64(s.Value), true
	case *scalar.Int32:
		return int64(s.Value), true
	case *scalar.Int64:
		return s.Value, true
	}
	return 0, false
}

// decimalConst returns lit (an integer or a decimal128) in steps of 10^-scale, when exact.
func decimalConst(scale int32, lit scalar.Scalar) (int64, bool) {
	var v decimal128.Num
	var from int32
	if d, ok := lit.(*scalar.Decimal128); ok {
		v, from = d.Value, d.Type.(*arrow.Decimal128Type).Scale
	} else if i, ok := integerConst(lit); ok {
		v = decimal128.FromI64(i)
	} else {
		return 0, false
	}
	if from != scale {
		r, err := v.Rescale(from, scale) // fails when digits would be lost
		if err != nil {
			return 0, false
		}
		v = r
	}
	if !fitsInt64(v) {
		return 0, false
	}
	return int64(v.LowBits()), true
}

// Select keeps the rows of arr (of the comparison's column type) where the comparison is
// TRUE: of every row when all is set (sel is then only a buffer), else of the rows in sel,
// narrowed in place. NULL rows are dropped. ok is false (and sel untouched) when arr does
// not have the column type.
func (c ConstCompare) Select(arr arrow.Array, sel []int32, all bool) (out []int32, ok bool) {
	if arr.DataType().ID() != c.id {
		return nil, false
	}
	n := arr.Len()
	if all {
		sel = grow32(sel[:0], n)
	}
	if c.none || arr.NullN() == n {
		return sel[:0], true
	}
	d := arr.Data()
	switch c.id {
	case arrow.INT8:
		out = selectRange(c, arrow.GetValues[int8](d, 1), sel, all)
	case arrow.INT16:
		out = selectRange(c, arrow.GetValues[int16](d, 1), sel, all)
	case arrow.INT32, arrow.DATE32:
		out = selectRange(c, arrow.GetValues[int32](d, 1), sel, all)
	case arrow.INT64:
		out = selectRange(c, arrow.GetValues[int64](d, 1), sel, all)
	case arrow.DECIMAL128:
		out = c.selectDecimal(arrow.GetValues[decimal128.Num](d, 1), sel, all)
	}
	if arr.NullN() > 0 {
		out = dropNulls(arr, out)
	}
	return out, true
}

// Intersect returns the comparison keeping the rows both c and d keep, when one
// comparison can (both on the same column type, neither a <>); ok is false otherwise.
func (c ConstCompare) Intersect(d ConstCompare) (ConstCompare, bool) {
	if c.id != d.id || c.neg || d.neg {
		return c, false
	}
	out := ConstCompare{id: c.id, lo: max(c.lo, d.lo), hi: min(c.hi, d.hi), none: c.none || d.none}
	if out.lo > out.hi {
		out.none = true
	}
	return out, true
}

// Mask sets buf[i] (resized to arr's length) to whether row i passes, for an integer or
// date column without NULLs, and returns it with the number of rows kept; ok is false (buf
// untouched) for another column type, a decimal column or a column with NULLs.
func (c ConstCompare) Mask(arr arrow.Array, buf []bool) (mask []bool, kept int, ok bool) {
	if arr.DataType().ID() != c.id || arr.NullN() != 0 {
		return nil, 0, false
	}
	n := arr.Len()
	if cap(buf) < n {
		buf = make([]bool, n)
	}
	buf = buf[:n]
	if c.none {
		clear(buf)
		return buf, 0, true
	}
	d := arr.Data()
	switch c.id {
	case arrow.INT8:
		kept = maskRange(c, arrow.GetValues[int8](d, 1), buf)
	case arrow.INT16:
		kept = maskRange(c, arrow.GetValues[int16](d, 1), buf)
	case arrow.INT32, arrow.DATE32:
		kept = maskRange(c, arrow.GetValues[int32](d, 1), buf)
	case arrow.INT64:
		kept = maskRange(c, arrow.GetValues[int64](d, 1), buf)
	default:
		return nil, 0, false
	}
	return buf, kept, true
}

// maskRange sets mask[i] to whether vals[i] passes and returns how many do. Eight rows'
// bools are built in one word, stored at once and counted with one popcount.
func maskRange[T int8 | int16 | int32 | int64](c ConstCompare, vals []T, mask []bool) int {
	width, lo := uint64(c.hi)-uint64(c.lo), uint64(c.lo)
	var flip uint64 // with neg, every bool is inverted
	if c.neg {
		flip = allSet
	}
	n := len(vals)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mask))), len(mask))[:n] // a Go bool is one byte, 0 or 1
	in := func(v T) uint64 { return uint64(b2i(uint64(int64(v))-lo <= width)) }
	k, i := 0, 0
	for ; i+8 <= n; i += 8 {
		v := vals[i : i+8 : i+8]
		w := in(v[0]) | in(v[1])<<8 | in(v[2])<<16 | in(v[3])<<24 |
			in(v[4])<<32 | in(v[5])<<40 | in(v[6])<<48 | in(v[7])<<56
		w ^= flip
		binary.LittleEndian.PutUint64(out[i:], w)
		k += bits.OnesCount64(w)
	}
	for ; i < n; i++ {
		b := byte(in(vals[i]) ^ flip&1)
		out[i] = b
		k += int(b)
	}
	return k
}

// selectRange writes the kept positions over sel (all: every row).
func selectRange[T int8 | int16 | int32 | int64](c ConstCompare, vals []T, sel []int32, all bool) []int32 {
	width := uint64(c.hi) - uint64(c.lo)
	k := 0
	if all {
		return selectRangeAll(c, vals, sel[:len(vals)])
	}
	for _, i := range sel {
		keep := (uint64(int64(vals[i]))-uint64(c.lo) <= width) != c.neg
		sel[k] = i
		k += b2i(keep)
	}
	return sel[:k]
}

// selectDecimal is selectRange over decimal128 values; a value that does not fit int64 is in
// the range only when the range is open on its side (holdsHuge).
func (c ConstCompare) selectDecimal(vals []decimal128.Num, sel []int32, all bool) []int32 {
	width := uint64(c.hi) - uint64(c.lo)
	k := 0
	if all {
		sel = sel[:len(vals)]
		for i, v := range vals {
			lo := v.LowBits()
			in := lo-uint64(c.lo) <= width
			if v.HighBits() != int64(lo)>>63 {
				in = c.holdsHuge(v.HighBits() < 0)
			}
			sel[k] = int32(i)
			k += b2i(in != c.neg)
		}
		return sel[:k]
	}
	for _, i := range sel {
		v := vals[i]
		lo := v.LowBits()
		in := lo-uint64(c.lo) <= width
		if v.HighBits() != int64(lo)>>63 {
			in = c.holdsHuge(v.HighBits() < 0)
		}
		sel[k] = i
		k += b2i(in != c.neg)
	}
	return sel[:k]
}

// selectRangeAll is selectRange over every row: each position is written, and the next
// one overwrites it unless the row is kept (no branch on the data, so its cost does not
// depend on the selectivity).
func selectRangeAll[T int8 | int16 | int32 | int64](c ConstCompare, vals []T, sel []int32) []int32 {
	width, lo := uint64(c.hi)-uint64(c.lo), uint64(c.lo)
	neg := b2i(c.neg)
	sel = sel[:len(vals)]
	k := 0
	for i, v := range vals {
		sel[k] = int32(i)
		k += b2i(uint64(int64(v))-lo <= width) ^ neg
	}
	return sel[:k]
}

// holdsHuge reports whether the range holds values below (negative) or above int64's range.
func (c ConstCompare) holdsHuge(negative bool) bool {
	if negative {
		return c.lo == math.MinInt64
	}
	return c.hi == math.MaxInt64
}

// dropNulls removes the NULL rows of arr from sel, in place.
func dropNulls(arr arrow.Array, sel []int32) []int32 {
	bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
	k := 0
	for _, i := range sel {
		p := off + int(i)
		sel[k] = i
		k += int(bits[p>>3]>>(p&7)) & 1
	}
	return sel[:k]
}

// SelectTrueIn narrows sel, in place, to the rows where cond (a boolean or all-NULL array)
// is TRUE.
func SelectTrueIn(cond arrow.Array, sel []int32) []int32 {
	if cond.NullN() == cond.Len() || cond.DataType().ID() != arrow.BOOL {
		return sel[:0]
	}
	d := cond.Data()
	vals, off := d.Buffers()[1].Bytes(), d.Offset()
	var valid []byte
	if cond.NullN() > 0 {
		valid = cond.NullBitmapBytes()
	}
	k := 0
	for _, i := range sel {
		p := off + int(i)
		bit := int(vals[p>>3]>>(p&7)) & 1
		if valid != nil {
			bit &= int(valid[p>>3]>>(p&7)) & 1
		}
		sel[k] = i
		k += bit
	}
	return sel[:k]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// grow32 returns s with room for n elements (len 0).
func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, 0, n)
	}
	return s[:0]
}
