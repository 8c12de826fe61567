package kernel

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// IsTemporalArith reports whether add/subtract over a and b is date/time arithmetic,
// which DateArith implements.
func IsTemporalArith(a, b arrow.DataType) bool {
	return isTemporal(a) || isTemporal(b)
}

func isTemporal(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.DATE32, arrow.TIMESTAMP, arrow.INTERVAL_MONTH_DAY_NANO:
		return true
	}
	return false
}

// DateArith is date/time addition (op OpAdd) or subtraction (OpSubtract), as DuckDB does
// it:
//
//	date ± integer       → date (days)
//	integer + date       → date
//	date - date          → int64 (days)
//	date ± interval      → timestamp[us]
//	interval + date      → timestamp[us]
//	timestamp ± interval → timestamp (same unit)
//	interval + timestamp → timestamp
//	timestamp - timestamp → interval (days and nanoseconds)
//
// Adding months clamps the day to the end of the month (Jan 31 + 1 month = Feb 29).
// Intervals are arrow month_day_nano. NULL in either operand gives NULL.
func DateArith(mem memory.Allocator, op int, a, b arrow.Array) (arrow.Array, error) {
	at, bt := a.DataType().ID(), b.DataType().ID()
	sub := op == OpSubtract
	switch {
	case at == arrow.DATE32 && arrow.IsInteger(bt):
		return dateAddDays(mem, a, b, sub)
	case arrow.IsInteger(at) && bt == arrow.DATE32 && !sub:
		return dateAddDays(mem, b, a, false)
	case at == arrow.DATE32 && bt == arrow.DATE32 && sub:
		return dateDiff(mem, a, b)
	case (at == arrow.DATE32 || at == arrow.TIMESTAMP) && bt == arrow.INTERVAL_MONTH_DAY_NANO:
		return addInterval(mem, a, b, sub)
	case at == arrow.INTERVAL_MONTH_DAY_NANO && (bt == arrow.DATE32 || bt == arrow.TIMESTAMP) && !sub:
		return addInterval(mem, b, a, false)
	case at == arrow.TIMESTAMP && bt == arrow.TIMESTAMP && sub:
		return timestampDiff(mem, a, b)
	}
	name := map[bool]string{false: "+", true: "-"}[sub]
	return nil, dberr.NotSupported("date arithmetic " + a.DataType().String() + " " + name + " " + b.DataType().String())
}

func dateAddDays(mem memory.Allocator, d, k arrow.Array, sub bool) (arrow.Array, error) {
	days := arrow.GetValues[arrow.Date32](d.Data(), 1)
	get, err := intGetter(k)
	if err != nil {
		return nil, err
	}
	n := d.Len()
	out := NewFixed[arrow.Date32](mem, arrow.FixedWidthTypes.Date32, n)
	args := []arrow.Array{d, k}
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		delta := get(i)
		if sub {
			delta = -delta
		}
		v := int64(days[i]) + delta
		if v < math.MinInt32 || v > math.MaxInt32 {
			out.Release()
			return nil, dberr.New(dberr.OutOfRange, "Date out of range: %d days after 1970-01-01", v)
		}
		out.Values[i] = arrow.Date32(v)
	}
	return out.Finish(), nil
}

func dateDiff(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	x := arrow.GetValues[arrow.Date32](a.Data(), 1)
	y := arrow.GetValues[arrow.Date32](b.Data(), 1)
	args := []arrow.Array{a, b}
	return buildInt64s(mem, args, a.Len(), func(i int) (int64, error) {
		return int64(x[i]) - int64(y[i]), nil
	})
}

// AddMonths adds months to t, clamping the day to the last day of the resulting month.
func AddMonths(t time.Time, months int) time.Time {
	y, m, d := t.Date()
	total := int(m) - 1 + months
	ny, nm := y+floorDivInt(total, 12), total-floorDivInt(total, 12)*12+1
	last := time.Date(ny, time.Month(nm)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	hh, mm, ss := t.Clock()
	return time.Date(ny, time.Month(nm), min(d, last), hh, mm, ss, t.Nanosecond(), time.UTC)
}

func floorDivInt(a, b int) int { return int(floorDiv(int64(a), int64(b))) }

// addInterval adds (or subtracts) an interval to a date or timestamp.
func addInterval(mem memory.Allocator, x, iv arrow.Array, sub bool) (arrow.Array, error) {
	get, err := timeGetter(x)
	if err != nil {
		return nil, err
	}
	ivs := iv.(*array.MonthDayNanoInterval)
	dt := x.DataType()
	unit := arrow.Microsecond
	if ts, ok := dt.(*arrow.TimestampType); ok {
		unit = ts.Unit
	} else {
		dt = &arrow.TimestampType{Unit: arrow.Microsecond}
	}
	n := x.Len()
	out := NewFixed[arrow.Timestamp](mem, dt, n)
	args := []arrow.Array{x, iv}
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		v := ivs.Value(i)
		months, days, nanos := int(v.Months), int(v.Days), v.Nanoseconds
		if sub {
			months, days, nanos = -months, -days, -nanos
		}
		t := AddMonths(get(i), months).AddDate(0, 0, days).Add(time.Duration(nanos))
		out.Values[i] = arrow.Timestamp(timeIn(t, unit))
	}
	return out.Finish(), nil
}

// timeIn is t in the given unit since the epoch.
func timeIn(t time.Time, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return t.Unix()
	case arrow.Millisecond:
		return t.UnixMilli()
	case arrow.Nanosecond:
		return t.UnixNano()
	}
	return t.UnixMicro()
}

// timestampDiff is a - b as an interval of days and nanoseconds (no months), as DuckDB
// normalizes it.
func timestampDiff(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	ga, err := timeGetter(a)
	if err != nil {
		return nil, err
	}
	gb, err := timeGetter(b)
	if err != nil {
		return nil, err
	}
	n := a.Len()
	out := NewFixed[arrow.MonthDayNanoInterval](mem, arrow.FixedWidthTypes.MonthDayNanoInterval, n)
	args := []arrow.Array{a, b}
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		micros := ga(i).UnixMicro() - gb(i).UnixMicro()
		days := micros / microsPerDay
		rest := micros - days*microsPerDay
		out.Values[i] = arrow.MonthDayNanoInterval{Days: int32(days), Nanoseconds: rest * 1000}
	}
	return out.Finish(), nil
}
