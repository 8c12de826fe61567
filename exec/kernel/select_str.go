package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// strSetLinearMax is the largest constant set StrSet tests by comparing with each constant
// (lengths first, then bytes); larger sets use a hash lookup.
const strSetLinearMax = 8

// StrSet is a test of a string or binary column (32- or 64-bit offsets) against constants:
// equality with one of them (= or IN) or, negated, with none of them (<>). Like
// ConstCompare, its Select narrows a selection vector without building a boolean array; NULL
// rows never pass.
type StrSet struct {
	vals  []string            // the constants, when at most strSetLinearMax
	set   map[string]struct{} // the constants, when more
	lens  uint64              // bit l set when some constant has length l (l < 64); bit 63 also for longer
	neg   bool                // keep the rows equal to no constant
	empty bool                // no constant: = / IN keeps nothing, <> keeps every non-NULL row
}

// NewStrSet returns the test "column equals one of vals" (neg: "equals none of vals"). Pass
// only the non-NULL constants; for = or IN a NULL constant can never make a row TRUE, for
// <> the caller must not use a StrSet when the constant is NULL.
func NewStrSet(vals []string, neg bool) StrSet {
	s := StrSet{neg: neg, empty: len(vals) == 0}
	if len(vals) > strSetLinearMax {
		s.set = make(map[string]struct{}, len(vals))
		for _, v := range vals {
			s.set[v] = struct{}{}
		}
	} else {
		s.vals = append([]string(nil), vals...)
	}
	for _, v := range vals {
		s.lens |= 1 << min(len(v), 63)
	}
	return s
}

// StrSetColumn reports whether a column of type t can be tested by a StrSet.
func StrSetColumn(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// Select keeps the rows of arr where the test is TRUE: of every row when all is set (sel is
// then only a buffer), else of the rows in sel, narrowed in place. ok is false (sel
// untouched) when arr is not a string or binary array.
func (s StrSet) Select(arr arrow.Array, sel []int32, all bool) (out []int32, ok bool) {
	if !StrSetColumn(arr.DataType()) {
		return nil, false
	}
	n := arr.Len()
	if all {
		sel = grow32(sel, n)[:n]
	}
	if arr.NullN() == n {
		return sel[:0], true
	}
	d := arr.Data()
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	offs, m := d.Buffers()[1].Bytes(), d.Offset()
	switch arr.DataType().ID() { // the offsets of the array's rows, one more than its length
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		out = selectStr(s, arrow.GetData[int64](offs)[m:m+n+1], data, sel, all)
	default:
		out = selectStr(s, arrow.GetData[int32](offs)[m:m+n+1], data, sel, all)
	}
	if arr.NullN() > 0 {
		out = dropNulls(arr, out)
	}
	return out, true
}

// selectStr narrows sel to the rows whose value (data[offs[i]:offs[i+1]]) passes; all: of
// every row (sel then has the array's length and is only written).
func selectStr[O int32 | int64](s StrSet, offs []O, data []byte, sel []int32, all bool) []int32 {
	k := 0
	if all {
		for i := range len(offs) - 1 {
			sel[k] = int32(i)
			k += b2i(s.has(data[offs[i]:offs[i+1]]) != s.neg)
		}
		return sel[:k]
	}
	for _, i := range sel {
		sel[k] = i
		k += b2i(s.has(data[offs[i]:offs[i+1]]) != s.neg)
	}
	return sel[:k]
}

// has reports whether v equals one of the constants.
func (s StrSet) has(v []byte) bool {
	if s.empty || s.lens&(1<<min(len(v), 63)) == 0 {
		return false
	}
	if s.set != nil {
		_, ok := s.set[string(v)] // no allocation: the conversion is only a lookup key
		return ok
	}
	for _, c := range s.vals {
		if len(c) == len(v) && c == string(v) {
			return true
		}
	}
	return false
}
