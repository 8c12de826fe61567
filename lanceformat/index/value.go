package index

import (
	"bytes"
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// value is an index key normalized for comparison: exactly one of the kinds below.
type value struct {
	kind vkind
	i    int64
	u    uint64
	f    float64
	b    []byte // strings and binaries
}

type vkind uint8

const (
	kNull vkind = iota
	kInt
	kUint
	kFloat
	kBytes
)

// valueAt normalizes element i of arr; ok is false for unsupported types.
func valueAt(arr arrow.Array, i int) (value, bool) {
	if arr.IsNull(i) {
		return value{}, true
	}
	switch a := arr.(type) {
	case *array.Int8:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Int16:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Int32:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Int64:
		return value{kind: kInt, i: a.Value(i)}, true
	case *array.Uint8:
		return value{kind: kUint, u: uint64(a.Value(i))}, true
	case *array.Uint16:
		return value{kind: kUint, u: uint64(a.Value(i))}, true
	case *array.Uint32:
		return value{kind: kUint, u: uint64(a.Value(i))}, true
	case *array.Uint64:
		return value{kind: kUint, u: a.Value(i)}, true
	case *array.Float32:
		return value{kind: kFloat, f: float64(a.Value(i))}, true
	case *array.Float64:
		return value{kind: kFloat, f: a.Value(i)}, true
	case *array.Boolean:
		if a.Value(i) {
			return value{kind: kUint, u: 1}, true
		}
		return value{kind: kUint}, true
	case *array.Date32:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Date64:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Timestamp:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Time32:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Time64:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.Duration:
		return value{kind: kInt, i: int64(a.Value(i))}, true
	case *array.String:
		return value{kind: kBytes, b: []byte(a.Value(i))}, true
	case *array.LargeString:
		return value{kind: kBytes, b: []byte(a.Value(i))}, true
	case *array.Binary:
		return value{kind: kBytes, b: a.Value(i)}, true
	case *array.LargeBinary:
		return value{kind: kBytes, b: a.Value(i)}, true
	case *array.FixedSizeBinary:
		return value{kind: kBytes, b: a.Value(i)}, true
	}
	return value{}, false
}

// scalarValue normalizes a query scalar; ok is false for unsupported types. Timestamps,
// dates and times compare by their raw integer, so the caller must pass the column's unit.
func scalarValue(s scalar.Scalar) (value, bool) {
	if s == nil || !s.IsValid() {
		return value{}, true
	}
	switch x := s.(type) {
	case *scalar.Int8:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Int16:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Int32:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Int64:
		return value{kind: kInt, i: x.Value}, true
	case *scalar.Uint8:
		return value{kind: kUint, u: uint64(x.Value)}, true
	case *scalar.Uint16:
		return value{kind: kUint, u: uint64(x.Value)}, true
	case *scalar.Uint32:
		return value{kind: kUint, u: uint64(x.Value)}, true
	case *scalar.Uint64:
		return value{kind: kUint, u: x.Value}, true
	case *scalar.Float32:
		return value{kind: kFloat, f: float64(x.Value)}, true
	case *scalar.Float64:
		return value{kind: kFloat, f: x.Value}, true
	case *scalar.Boolean:
		if x.Value {
			return value{kind: kUint, u: 1}, true
		}
		return value{kind: kUint}, true
	case *scalar.Date32:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Date64:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Timestamp:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Time32:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.Time64:
		return value{kind: kInt, i: int64(x.Value)}, true
	case *scalar.String:
		return value{kind: kBytes, b: bytes.Clone(x.Value.Bytes())}, true
	case *scalar.LargeString:
		return value{kind: kBytes, b: bytes.Clone(x.Value.Bytes())}, true
	case *scalar.Binary:
		return value{kind: kBytes, b: bytes.Clone(x.Value.Bytes())}, true
	case *scalar.LargeBinary:
		return value{kind: kBytes, b: bytes.Clone(x.Value.Bytes())}, true
	}
	return value{}, false
}

// compareValues orders two non-null values; numbers of different kinds compare by value.
func compareValues(a, b value) int {
	if a.kind == b.kind {
		switch a.kind {
		case kInt:
			return cmp.Compare(a.i, b.i)
		case kUint:
			return cmp.Compare(a.u, b.u)
		case kFloat:
			return compareFloat(a.f, b.f)
		case kBytes:
			return bytes.Compare(a.b, b.b)
		}
		return 0
	}
	if a.kind == kBytes || b.kind == kBytes {
		return cmp.Compare(a.kind, b.kind)
	}
	if a.kind == kInt && b.kind == kUint {
		if a.i < 0 {
			return -1
		}
		return cmp.Compare(uint64(a.i), b.u)
	}
	if a.kind == kUint && b.kind == kInt {
		return -compareValues(b, a)
	}
	return compareFloat(a.float(), b.float())
}

// compareFloat is a total order with NaN greater than everything (as Arrow sorts).
func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

func (v value) float() float64 {
	switch v.kind {
	case kInt:
		return float64(v.i)
	case kUint:
		return float64(v.u)
	}
	return v.f
}

// isNull reports whether v is the null value.
func (v value) isNull() bool { return v.kind == kNull }
