package kernel

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// moreDateFuncs are date_diff, last_day and strftime.
var moreDateFuncs = map[string]ScalarDef{
	"date_diff": {dateDiffFunc, 3, 3, true},
	"last_day":  {lastDayFunc, 1, 1, true},
	"strftime":  {strftimeFunc, 2, 2, true},
}

func init() {
	for name, def := range moreDateFuncs {
		dateFuncs[name] = def
	}
	scalarAliases["datediff"] = "date_diff"
}

// microsPer are the fixed-length units of date_diff, in microseconds.
var microsPer = map[string]int64{
	"hour": 3_600_000_000, "minute": 60_000_000, "second": 1_000_000,
	"millisecond": 1000, "microsecond": 1,
}

// DateDiff is DuckDB's date_diff(part, start, end): the number of part boundaries crossed
// from start to end (calendar parts count year/quarter/month changes, time parts count
// multiples of the unit since the epoch, day counts dates, week whole 7-day spans).
// ok is false for an unknown part.
func DateDiff(part string, start, end time.Time) (int64, bool) {
	p := canonicalPart(part)
	if us, ok := microsPer[p]; ok {
		return floorDiv(end.UnixMicro(), us) - floorDiv(start.UnixMicro(), us), true
	}
	y1, y2 := int64(start.Year()), int64(end.Year())
	days := floorDiv(end.UnixMicro(), microsPerDay) - floorDiv(start.UnixMicro(), microsPerDay)
	switch p {
	case "year":
		return y2 - y1, true
	case "quarter":
		return y2*4 + int64(end.Month()-1)/3 - y1*4 - int64(start.Month()-1)/3, true
	case "month":
		return y2*12 + int64(end.Month()) - y1*12 - int64(start.Month()), true
	case "day", "dow", "isodow", "doy":
		return days, true
	case "week":
		return days / 7, true
	case "decade":
		return floorDiv(y2, 10) - floorDiv(y1, 10), true
	case "century":
		return y2/100 - y1/100, true
	case "millennium":
		return y2/1000 - y1/1000, true
	case "isoyear":
		i1, _ := start.ISOWeek()
		i2, _ := end.ISOWeek()
		return int64(i2 - i1), true
	}
	return 0, false
}

// dateDiffFunc is date_diff(part, start, end): BIGINT.
func dateDiffFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	parts, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	start, err := timeGetter(args[1])
	if err != nil {
		return nil, err
	}
	end, err := timeGetter(args[2])
	if err != nil {
		return nil, err
	}
	return buildInt64s(mem, args, args[1].Len(), func(i int) (int64, error) {
		d, ok := DateDiff(parts(i), start(i), end(i))
		if !ok {
			return 0, dberr.New(dberr.Conversion, "extract specifier \"%s\" not recognized", parts(i))
		}
		return d, nil
	})
}

// lastDayFunc is last_day(x): the DATE of the last day of x's month.
func lastDayFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := timeGetter(args[0])
	if err != nil {
		return nil, err
	}
	n := args[0].Len()
	out := NewFixed[arrow.Date32](mem, arrow.FixedWidthTypes.Date32, n)
	for i := range n {
		if !IsValid(args[0], i) {
			out.SetNull(i)
			continue
		}
		t := get(i)
		first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1)
		out.Values[i] = arrow.Date32(floorDiv(last.Unix(), 86400))
	}
	return out.Finish(), nil
}
