package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/internal/dberr"
)

// intDistinctType reports whether DISTINCT sets over values of dt use the integer fast path.
func intDistinctType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.DATE32, arrow.DATE64:
		return true
	}
	return false
}

// firstSeenInts is firstSeen for an integer argument (seenInts[i] set).
func (a *Aggregate) firstSeenInts(i int, arg arrow.Array, groups []int32, include []bool, keepNulls bool) ([]bool, error) {
	d := &distinctIntSet{seen: a.seenInts[i], arg: arg, groups: groups, include: include, keepNulls: keepNulls}
	var added int64
	switch v := arg.(type) {
	case *array.Int8:
		added = firstSeenVals(d, v.Int8Values())
	case *array.Int16:
		added = firstSeenVals(d, v.Int16Values())
	case *array.Int32:
		added = firstSeenVals(d, v.Int32Values())
	case *array.Int64:
		added = firstSeenVals(d, v.Int64Values())
	case *array.Uint8:
		added = firstSeenVals(d, v.Uint8Values())
	case *array.Uint16:
		added = firstSeenVals(d, v.Uint16Values())
	case *array.Uint32:
		added = firstSeenVals(d, v.Uint32Values())
	case *array.Uint64:
		added = firstSeenVals(d, v.Uint64Values())
	case *array.Date32:
		added = firstSeenVals(d, v.Date32Values())
	case *array.Date64:
		added = firstSeenVals(d, v.Date64Values())
	default:
		return nil, dberr.New(dberr.Internal, "aggregate: DISTINCT argument of type %s, want %s",
			arg.DataType(), a.args[i].Type())
	}
	a.newBytes += added
	return d.out, nil
}

// distinctIntSet is the state of one firstSeenInts call.
type distinctIntSet struct {
	seen      *pairSet
	arg       arrow.Array
	groups    []int32
	include   []bool
	keepNulls bool
	out       []bool
}

// firstSeenVals marks in d.out the rows whose (group, value) pair is new, adding them to
// d.seen, and returns the bytes the set grew by. vals are arg's values (offset applied).
func firstSeenVals[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](d *distinctIntSet, vals []T) int64 {
	d.out = make([]bool, len(d.groups))
	nulls := d.arg.NullN() > 0
	var added int64
	for r, g := range d.groups {
		if d.include != nil && !d.include[r] {
			continue
		}
		tag, val := uint32(g)+1, uint64(0)
		if nulls && d.arg.IsNull(r) {
			if !d.keepNulls {
				continue
			}
			tag |= pairNull
		} else {
			val = uint64(vals[r])
		}
		isNew, grown := d.seen.add(tag, val)
		d.out[r] = isNew
		added += grown
	}
	return added
}
