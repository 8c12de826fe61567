package ops

import (
	"cmp"
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// rangeSearch compares the order keys of a RANGE frame with each row's bound: key reads an
// input row's key, target the bound (key minus or plus offset) of an input row.
type rangeSearch[T any] struct {
	key, target func(int) T
	cmp         func(a, b T) int
}

// fillRangeBound computes offset bounds of RANGE frames: the first position whose order
// key reaches (start) or passes (end) the current row's key minus (PRECEDING) or plus
// (FOLLOWING) the offset, in the direction of the ORDER BY. Rows whose key is NULL have the
// NULL rows as their frame bound (their peers), as DuckDB does. Keys may be numbers (offsets
// of the same type) or dates and timestamps (intervals, or day counts for dates).
func (l *windowLayout) fillRangeBound(ctx context.Context, env exec.Env, kind plan.BoundKind, isEnd bool, offs arrow.Array, out []int32) error {
	if len(l.orderCols) != 1 {
		return dberr.New(dberr.Binder, "RANGE with an offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	key := l.orderCols[0]
	dt := key.DataType()
	// Adding the offset moves forward in sort order for FOLLOWING ascending and for
	// PRECEDING descending.
	forward := (kind == plan.Following) != l.orderKeys[0].Descending
	temporal := dt.ID() == arrow.DATE32 || dt.ID() == arrow.TIMESTAMP
	k, ok := kindOf(dt)
	if !temporal && (!ok || ((k != kindSigned || !arrow.IsInteger(dt.ID())) && k != kindUnsigned && k != kindFloat && k != kindDecimal)) {
		return dberr.NotSupported("RANGE frame offsets on ORDER BY type " + dt.String())
	}
	if err := checkRangeOffsets(kind, offs); err != nil {
		return err
	}
	if temporal {
		return l.fillTemporalRange(env, forward, isEnd, key, offs, out)
	}
	offs.Retain()
	offs, err := castTo(ctx, env, offs, dt)
	if err != nil {
		return err
	}
	defer offs.Release()
	if k == kindFloat {
		get, off := floatGetter(key), floatGetter(offs)
		target := func(r int) float64 { return get(r) - off(r) }
		if forward {
			target = func(r int) float64 { return get(r) + off(r) }
		}
		return fillRange(l, rangeSearch[float64]{key: get, target: target, cmp: compareFloat}, isEnd, key, out)
	}
	get, off := numGetter(key, k), numGetter(offs, k)
	target := func(r int) decimal128.Num { return get(r).Sub(off(r)) }
	if forward {
		target = func(r int) decimal128.Num { return get(r).Add(off(r)) }
	}
	return fillRange(l, rangeSearch[decimal128.Num]{key: get, target: target, cmp: decimal128.Num.Cmp}, isEnd, key, out)
}

// checkRangeOffsets rejects NULL and negative offsets.
func checkRangeOffsets(kind plan.BoundKind, offs arrow.Array) error {
	dir := "PRECEDING"
	if kind == plan.Following {
		dir = "FOLLOWING"
	}
	var negative func(int) bool
	switch a := offs.(type) {
	case *array.MonthDayNanoInterval:
		negative = func(r int) bool { v := a.Value(r); return v.Months < 0 || v.Days < 0 || v.Nanoseconds < 0 }
	default:
		k, ok := kindOf(offs.DataType())
		switch {
		case !ok || k == kindString || k == kindBool:
			return dberr.New(dberr.Binder, "RANGE %s offset of type %s", dir, offs.DataType())
		case k == kindFloat:
			get := floatGetter(offs)
			negative = func(r int) bool { return get(r) < 0 }
		case k != kindUnsigned:
			get := numGetter(offs, k)
			negative = func(r int) bool { return get(r).Sign() < 0 }
		default:
			negative = func(int) bool { return false }
		}
	}
	for r := range offs.Len() {
		if !kernel.IsValid(offs, r) || negative(r) {
			return dberr.New(dberr.OutOfRange, "Invalid RANGE %s value", dir)
		}
	}
	return nil
}

// fillTemporalRange computes RANGE bounds over dates and timestamps: the bounds come from
// date arithmetic (date ± days → date, date ± interval → timestamp[us], timestamp ±
// interval → timestamp), and keys are compared with them in the bound's unit.
func (l *windowLayout) fillTemporalRange(env exec.Env, forward, isEnd bool, key, offs arrow.Array, out []int32) error {
	op := kernel.OpSubtract
	if forward {
		op = kernel.OpAdd
	}
	bounds, err := kernel.DateArith(env.Mem, op, key, offs)
	if err != nil {
		return err
	}
	defer bounds.Release()
	target := signedGetter(bounds)
	get := signedGetter(key)
	if key.DataType().ID() == arrow.DATE32 && bounds.DataType().ID() == arrow.TIMESTAMP {
		perDay := int64(86400) * int64(1e6) // date ± interval gives timestamp[us]
		days := get
		get = func(r int) int64 { return days(r) * perDay }
	}
	return fillRange(l, rangeSearch[int64]{key: get, target: target, cmp: cmp.Compare[int64]}, isEnd, key, out)
}

// numGetter reads integers and decimals (unscaled) as 128-bit numbers.
func numGetter(arr arrow.Array, k valueKind) func(int) decimal128.Num {
	switch k {
	case kindSigned:
		get := signedGetter(arr)
		return func(i int) decimal128.Num { return decimal128.FromI64(get(i)) }
	case kindUnsigned:
		get := unsignedGetter(arr)
		return func(i int) decimal128.Num { return decimal128.FromU64(get(i)) }
	}
	return decimalGetter(arr)
}

func fillRange[T any](l *windowLayout, a rangeSearch[T], isEnd bool, key arrow.Array, out []int32) error {
	desc := l.orderKeys[0].Descending
	for i := range out {
		row := int(l.perm[i])
		if !kernel.IsValid(key, row) {
			if isEnd {
				out[i] = int32(l.peerEnd(i))
			} else {
				out[i] = int32(l.peerBegin(i))
			}
			continue
		}
		target := a.target(row)
		lo, hi := l.validRange(i, key)
		n := sort.Search(hi-lo, func(j int) bool {
			c := a.cmp(a.key(int(l.perm[lo+j])), target)
			if desc {
				c = -c
			}
			if isEnd {
				return c > 0
			}
			return c >= 0
		})
		out[i] = int32(lo + n)
	}
	return nil
}

// validRange returns the positions of position i's partition whose order key is not NULL
// (they are contiguous: NULLs sort first or last).
func (l *windowLayout) validRange(i int, key arrow.Array) (int, int) {
	ps, pe := int(l.partStart[i]), int(l.partEnd[i])
	valid := func(j int) bool { return kernel.IsValid(key, int(l.perm[j])) }
	if l.orderKeys[0].NullsFirst {
		return ps + sort.Search(pe-ps, func(j int) bool { return valid(ps + j) }), pe
	}
	return ps, ps + sort.Search(pe-ps, func(j int) bool { return !valid(ps + j) })
}
