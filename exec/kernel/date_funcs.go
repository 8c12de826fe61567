package kernel

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// dateFuncs are the date and time functions. Timestamps with a time zone are read as UTC
// instants (flightd has no session time zone yet).
var dateFuncs = map[string]ScalarDef{
	"extract":    {datePartFunc, 2, 2, true},
	"date_part":  {datePartFunc, 2, 2, true},
	"year":       {fixedPart("year"), 1, 1, true},
	"month":      {fixedPart("month"), 1, 1, true},
	"day":        {fixedPart("day"), 1, 1, true},
	"date_trunc": {dateTruncFunc, 2, 2, true},
}

const (
	microsPerDay = int64(86_400_000_000)
)

// timeGetter returns the values of a date or timestamp array as UTC times.
func timeGetter(a arrow.Array) (func(int) time.Time, error) {
	switch a := a.(type) {
	case *array.Date32:
		return func(i int) time.Time { return time.Unix(int64(a.Value(i))*86400, 0).UTC() }, nil
	case *array.Date64:
		return func(i int) time.Time { return time.UnixMilli(int64(a.Value(i))).UTC() }, nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(i int) time.Time { return a.Value(i).ToTime(unit) }, nil
	}
	return nil, dberr.New(dberr.Internal, "want a date or timestamp argument, got %s", a.DataType())
}

// partAliases maps DuckDB's accepted spellings of date parts to the canonical ones.
var partAliases = map[string]string{
	"years": "year", "y": "year", "yr": "year", "yrs": "year",
	"months": "month", "mon": "month", "mons": "month",
	"days": "day", "d": "day", "dayofmonth": "day",
	"hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"minutes": "minute", "min": "minute", "mins": "minute", "m": "minute",
	"seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"milliseconds": "millisecond", "ms": "millisecond", "msec": "millisecond",
	"microseconds": "microsecond", "us": "microsecond", "usec": "microsecond",
	"weekday": "dow", "dayofweek": "dow", "dayofyear": "doy",
	"weeks": "week", "w": "week", "weekofyear": "week",
	"quarters": "quarter", "decades": "decade", "centuries": "century", "millennia": "millennium",
}

func canonicalPart(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if c, ok := partAliases[p]; ok {
		return c
	}
	return p
}

// DatePart returns part of t as DuckDB's date_part does; epoch is returned in f (seconds,
// with fractions), every other part in n. ok is false for an unknown part.
func DatePart(part string, t time.Time) (n int64, f float64, isFloat, ok bool) {
	switch canonicalPart(part) {
	case "year":
		return int64(t.Year()), 0, false, true
	case "month":
		return int64(t.Month()), 0, false, true
	case "day":
		return int64(t.Day()), 0, false, true
	case "hour":
		return int64(t.Hour()), 0, false, true
	case "minute":
		return int64(t.Minute()), 0, false, true
	case "second":
		return int64(t.Second()), 0, false, true
	case "millisecond":
		return int64(t.Second())*1000 + int64(t.Nanosecond()/1e6), 0, false, true
	case "microsecond":
		return int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1e3), 0, false, true
	case "dow":
		return int64(t.Weekday()), 0, false, true
	case "isodow":
		return int64((int(t.Weekday())+6)%7 + 1), 0, false, true
	case "doy":
		return int64(t.YearDay()), 0, false, true
	case "quarter":
		return int64((int(t.Month())-1)/3 + 1), 0, false, true
	case "week":
		_, w := t.ISOWeek()
		return int64(w), 0, false, true
	case "decade":
		return floorDiv(int64(t.Year()), 10), 0, false, true
	case "century":
		return centuryOf(int64(t.Year()), 100), 0, false, true
	case "millennium":
		return centuryOf(int64(t.Year()), 1000), 0, false, true
	case "epoch":
		return 0, float64(t.UnixMicro()) / 1e6, true, true
	}
	return 0, 0, false, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// centuryOf is the century (per 100) or millennium (per 1000) of a year: year 2000 is in
// the 20th century, 2001 in the 21st.
func centuryOf(year, per int64) int64 {
	if year > 0 {
		return (year-1)/per + 1
	}
	return year/per - 1
}

// datePartFunc is extract/date_part(part, x): bigint parts, except epoch (double).
func datePartFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	parts, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	return extractPart(mem, args, args[1], parts)
}

// fixedPart is year(x), month(x) or day(x).
func fixedPart(part string) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return extractPart(mem, args, args[0], func(int) string { return part })
	}
}

func extractPart(mem memory.Allocator, args []arrow.Array, x arrow.Array, parts func(int) string) (arrow.Array, error) {
	get, err := timeGetter(x)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	if n > 0 && canonicalPart(firstValid(args, parts, n)) == "epoch" {
		return buildFloat64s(mem, args, n, func(i int) (float64, bool, error) {
			_, f, _, ok := DatePart(parts(i), get(i))
			if !ok {
				return 0, false, unknownPart(parts(i))
			}
			return f, true, nil
		})
	}
	return buildInt64s(mem, args, n, func(i int) (int64, error) {
		v, _, isFloat, ok := DatePart(parts(i), get(i))
		if !ok || isFloat {
			return 0, unknownPart(parts(i))
		}
		return v, nil
	})
}

// firstValid returns the part name of the first row where every argument is valid.
func firstValid(args []arrow.Array, parts func(int) string, n int) string {
	for i := range n {
		if allValid(args, i) {
			return parts(i)
		}
	}
	return ""
}

func unknownPart(p string) error {
	return dberr.New(dberr.Conversion, "extract specifier \"%s\" not recognized", p)
}

// DateTrunc truncates t to the unit; ok is false for an unknown unit. Weeks start on
// Monday (ISO), as in DuckDB.
func DateTrunc(unit string, t time.Time) (time.Time, bool) {
	y, m, d := t.Date()
	loc := time.UTC
	switch canonicalPart(unit) {
	case "millennium":
		return time.Date(int(floorDiv(int64(y), 1000)*1000), 1, 1, 0, 0, 0, 0, loc), true
	case "century":
		return time.Date(int(floorDiv(int64(y), 100)*100), 1, 1, 0, 0, 0, 0, loc), true
	case "decade":
		return time.Date(int(floorDiv(int64(y), 10)*10), 1, 1, 0, 0, 0, 0, loc), true
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc), true
	case "quarter":
		return time.Date(y, time.Month((int(m)-1)/3*3+1), 1, 0, 0, 0, 0, loc), true
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc), true
	case "week":
		back := (int(t.Weekday()) + 6) % 7
		return time.Date(y, m, d-back, 0, 0, 0, 0, loc), true
	case "day":
		return time.Date(y, m, d, 0, 0, 0, 0, loc), true
	case "hour":
		return t.Truncate(time.Hour), true
	case "minute":
		return t.Truncate(time.Minute), true
	case "second":
		return t.Truncate(time.Second), true
	case "millisecond":
		return t.Truncate(time.Millisecond), true
	case "microsecond":
		return t.Truncate(time.Microsecond), true
	}
	return t, false
}

// dateTruncFunc is date_trunc(unit, x): a timestamp[us] (DuckDB returns TIMESTAMP for
// dates too; the caller casts when the plan says DATE).
func dateTruncFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	units, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	get, err := timeGetter(args[1])
	if err != nil {
		return nil, err
	}
	n := args[1].Len()
	out := NewFixed[arrow.Timestamp](mem, &arrow.TimestampType{Unit: arrow.Microsecond}, n)
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		t, ok := DateTrunc(units(i), get(i))
		if !ok {
			out.Release()
			return nil, dberr.New(dberr.Conversion, "date_trunc specifier \"%s\" not recognized", units(i))
		}
		out.Values[i] = arrow.Timestamp(t.UnixMicro())
	}
	return out.Finish(), nil
}

// CurrentDate returns n copies of now's date (UTC): DuckDB's current_date, fixed for a
// query.
func CurrentDate(mem memory.Allocator, n int, now time.Time) arrow.Array {
	out := NewFixed[arrow.Date32](mem, arrow.FixedWidthTypes.Date32, n)
	d := arrow.Date32(floorDiv(now.Unix(), 86400))
	for i := range out.Values {
		out.Values[i] = d
	}
	return out.Finish()
}

// CurrentTimestamp returns n copies of now as timestamp[us, tz=UTC]: DuckDB's
// current_timestamp (TIMESTAMP WITH TIME ZONE), fixed for a query.
func CurrentTimestamp(mem memory.Allocator, n int, now time.Time) arrow.Array {
	out := NewFixed[arrow.Timestamp](mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, n)
	for i := range out.Values {
		out.Values[i] = arrow.Timestamp(now.UnixMicro())
	}
	return out.Finish()
}
