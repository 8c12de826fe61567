package kernel_test

import (
	"math"
	"testing"
)

func TestMoreMathFuncsVsDuckDB(t *testing.T) {
	m := func(fn string, args ...any) fcase { return fcase{fn: fn, args: args} }
	e := func(sub, fn string, args ...any) fcase { return fcase{fn: fn, args: args, errSub: sub} }
	runDiff(t, []fcase{
		m("sin", 0.5), m("cos", -1.0), m("tan", 1.0), m("asin", 0.5), m("asin", 2.0), m("acos", 0.0),
		m("acos", -1.5), m("atan", 10.0), m("cot", 1.0), m("cot", 0.0), m("atan2", 1.0, -2.0),
		m("atan2", 0.0, 0.0), m("degrees", math.Pi), m("radians", 90.0), m("sin", int64(3)),
		m("cbrt", 27.0), m("cbrt", -8.0), m("cbrt", dec{"0.001", 4, 3}), m("cbrt", math.Inf(-1)),
		m("isnan", math.NaN()), m("isnan", 1.0), m("isinf", math.Inf(-1)), m("isinf", math.NaN()),
		m("isfinite", 2.0), m("isfinite", math.Inf(1)), m("isfinite", math.NaN()),
		m("factorial", int32(0)), m("factorial", int32(1)), m("factorial", int32(20)),
		m("factorial", int32(21)), m("factorial", int32(33)),
		e("negative", "factorial", int32(-1)), e("out of range", "factorial", int32(34)),
		m("gcd", int64(12), int64(18)), m("gcd", int64(-12), int64(18)), m("gcd", int64(0), int64(0)),
		m("gcd", int64(7), int64(0)), m("gcd", int64(math.MinInt64), int64(2)),
		e("Overflow", "gcd", int64(math.MinInt64), int64(0)),
		e("Overflow", "gcd", int64(math.MinInt64), int64(math.MinInt64)),
		m("lcm", int64(4), int64(6)), m("lcm", int64(-4), int64(6)), m("lcm", int64(0), int64(5)),
		m("lcm", int64(math.MinInt64), int64(0)), e("out of range", "lcm", int64(math.MaxInt64), int64(2)),
		m("trunc", 2.7), m("trunc", -2.7), m("trunc", int32(5)), m("trunc", dec{"-2.75", 4, 2}),
		m("trunc", dec{"1.2345", 6, 4}, int32(2)), m("trunc", 1.2345, int32(2)), m("trunc", -1.2345, int32(3)),
		m("trunc", math.Inf(1)),
	})
}

func TestCharFuncsVsDuckDB(t *testing.T) {
	s := func(fn string, args ...any) fcase { return fcase{fn: fn, args: args} }
	runDiff(t, []fcase{
		s("ascii", "A"), s("ascii", ""), s("ascii", "é"), s("ascii", "🦆x"),
		s("chr", int32(65)), s("chr", int32(233)), s("chr", int32(0x1F986)),
		{fn: "chr", args: []any{int32(-1)}, errSub: "Invalid UTF8 Codepoint"},
		{fn: "chr", args: []any{int32(0x110000)}, errSub: "Invalid UTF8 Codepoint"},
	})
}

func TestMoreDateFuncsVsDuckDB(t *testing.T) {
	var cases []fcase
	pairs := [][2]any{
		{date("2024-01-31"), date("2024-03-01")}, {date("2024-03-01"), date("2023-02-28")},
		{ts("2023-12-31 23:59:59.5"), ts("2024-01-01 00:00:00.25")},
		{ts("1969-12-31 22:30:00"), ts("1970-01-01 01:10:00")}, {date("2024-01-07"), date("2024-01-20")},
		{ts("1999-07-04 14:00:00"), ts("1960-02-29 00:00:01")}, {date("2000-12-31"), date("2001-01-01")},
		{date("1999-12-31"), date("2000-01-01")}, {date("0999-06-01"), date("2001-01-01")},
	}
	for _, part := range []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second",
		"millisecond", "microsecond", "decade", "century", "millennium", "isoyear", "dow", "doy", "days"} {
		for _, p := range pairs {
			cases = append(cases, fcase{fn: "date_diff", args: []any{part, p[0], p[1]}})
		}
	}
	cases = append(cases,
		fcase{fn: "date_diff", args: []any{"fortnight", date("2024-01-01"), date("2024-01-02")}, errSub: "not recognized"},
		fcase{fn: "last_day", args: []any{date("2024-02-10")}}, fcase{fn: "last_day", args: []any{date("2023-02-01")}},
		fcase{fn: "last_day", args: []any{ts("1999-12-31 23:00:00")}}, fcase{fn: "last_day", args: []any{date("1900-04-30")}},
	)
	for _, f := range []string{"%Y/%m/%d", "%a %A %w %u", "%b %h %B %-m %-d %e", "%y %-y %G %V", "%H:%M:%S %I %-I %p",
		"%-H %-M %-S %g %f", "%j %-j %U %W", "%c | %x | %X | %%", "no specifiers", "%Q", "abc%"} {
		for _, x := range []any{ts("2024-03-05 07:08:09.123456"), ts("2021-01-03 12:00:00"), date("0005-01-01"), ts("2023-12-31 00:00:00")} {
			cases = append(cases, fcase{fn: "strftime", args: []any{x, f}})
		}
	}
	runDiff(t, cases)
}
