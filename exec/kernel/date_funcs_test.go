package kernel_test

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

func date(s string) arrow.Date32 {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return arrow.Date32FromTime(t)
}

func TestDateFuncsVsDuckDB(t *testing.T) {
	d := func(fn string, args ...any) fcase { return fcase{fn: fn, args: args} }
	var cases []fcase
	for _, part := range []string{"year", "month", "day", "hour", "minute", "second", "dow", "isodow", "doy",
		"quarter", "week", "epoch", "millisecond", "microsecond", "decade", "century", "years", "DAY"} {
		cases = append(cases,
			d("date_part", part, date("2024-03-17")),
			d("date_part", part, ts("2024-03-15 10:11:12.345")),
			d("date_part", part, ts("1960-12-31 23:59:59.5")),
			fcase{fn: "extract", args: []any{part, date("2021-01-01")}, sql: "date_part(%s, %s)"},
		)
	}
	cases = append(cases,
		fcase{fn: "date_part", args: []any{"fortnight", date("2024-03-17")}, errSub: "not recognized"},
		d("year", date("2024-03-15")), d("month", ts("2024-03-15 10:00:00")), d("day", date("2000-02-29")),
	)
	for _, unit := range []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second",
		"millisecond", "decade", "century", "millennium"} {
		cases = append(cases,
			d("date_trunc", unit, date("2024-03-17")),
			d("date_trunc", unit, ts("2024-05-15 10:11:12.345678")),
			d("date_trunc", unit, ts("1999-12-31 23:59:59.999")),
		)
	}
	cases = append(cases,
		fcase{fn: "add", args: []any{date("2024-01-01"), int32(5)}, sql: "%s + %s"},
		fcase{fn: "add", args: []any{int32(5), date("2024-01-01")}, sql: "%s + %s"},
		fcase{fn: "subtract", args: []any{date("2024-01-01"), int32(1)}, sql: "%s - %s"},
		fcase{fn: "subtract", args: []any{date("2024-03-01"), date("2024-01-01")}, sql: "%s - %s"},
		fcase{fn: "subtract", args: []any{date("2023-03-01"), date("2024-01-01")}, sql: "%s - %s"},
		fcase{fn: "add", args: []any{date("2024-01-31"), iv{months: 1}}, sql: "%s + %s"},
		fcase{fn: "subtract", args: []any{date("2024-03-31"), iv{months: 1}}, sql: "%s - %s"},
		fcase{fn: "add", args: []any{iv{months: 1}, date("2024-01-31")}, sql: "%s + %s"},
		fcase{fn: "add", args: []any{ts("2024-01-31 10:00:00"), iv{months: 1, days: 2, micros: 3 * 3600e6}}, sql: "%s + %s"},
		fcase{fn: "add", args: []any{ts("2024-12-31 23:00:00"), iv{months: 14, micros: 7200e6}}, sql: "%s + %s"},
		fcase{fn: "subtract", args: []any{ts("2024-03-01 00:00:00"), iv{days: 1, micros: 1}}, sql: "%s - %s"},
		fcase{fn: "subtract", args: []any{ts("2024-01-02 01:00:00"), ts("2024-01-01 00:00:00")}, sql: "%s - %s"},
		fcase{fn: "subtract", args: []any{ts("2024-01-01 00:00:00"), ts("2024-01-02 01:00:00.5")}, sql: "%s - %s"},
	)
	runDiff(t, cases)
}

func TestCurrentDateTimestamp(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	now := time.Date(2024, 3, 15, 23, 59, 1, 5000, time.UTC)
	d := kernel.CurrentDate(mem, 3, now)
	defer d.Release()
	require.Equal(t, 3, d.Len())
	require.Equal(t, "2024-03-15", d.(*array.Date32).Value(2).FormattedString())
	ts := kernel.CurrentTimestamp(mem, 2, now)
	defer ts.Release()
	require.Equal(t, arrow.Timestamp(now.UnixMicro()), ts.(*array.Timestamp).Value(1))
	require.Equal(t, "UTC", ts.DataType().(*arrow.TimestampType).TimeZone)
	before := kernel.CurrentDate(mem, 1, time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC))
	defer before.Release()
	require.Equal(t, arrow.Date32(-1), before.(*array.Date32).Value(0))
}

func TestDateArithUnsupported(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := argArray(t, mem, date("2024-01-01"))
	defer a.Release()
	_, err := kernel.DateArith(mem, kernel.OpAdd, a, a)
	require.ErrorContains(t, err, "not supported yet: date arithmetic date32 + date32")
	require.True(t, kernel.IsTemporalArith(a.DataType(), arrow.PrimitiveTypes.Int64))
	require.False(t, kernel.IsTemporalArith(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64))
}
