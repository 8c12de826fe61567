package kernel

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// CastToString renders every value as text the way DuckDB casts to VARCHAR: integers in
// decimal, floats in their shortest round-tripping form with ".0" on whole numbers ("3.0",
// "1e+20", "inf", "nan"), booleans as true/false, dates as YYYY-MM-DD, timestamps as
// "YYYY-MM-DD HH:MM:SS[.ffffff]" ("+00" added for zoned ones, shown in UTC), decimals with
// their scale.
// Other types use arrow's ValueStr. dst is string or large_string. (arrow's cast to string
// leaks its buffers in arrow-go v18.8.0, so it is done here.)
func CastToString(mem memory.Allocator, a arrow.Array, dst arrow.DataType) (arrow.Array, error) {
	b := array.NewBuilder(mem, dst)
	defer b.Release()
	type appender interface{ Append(string) }
	app, ok := b.(appender)
	if !ok {
		return nil, dberr.NotSupported("cast to " + dst.String())
	}
	render := stringer(a)
	for i := range a.Len() {
		if !IsValid(a, i) {
			b.AppendNull()
			continue
		}
		app.Append(render(i))
	}
	return b.NewArray(), nil
}

func stringer(a arrow.Array) func(int) string {
	if f, ok := nestedStringer(a); ok { // struct_string.go
		return f
	}
	switch a := a.(type) {
	case *array.Timestamp:
		dt := a.DataType().(*arrow.TimestampType)
		suffix := ""
		if dt.TimeZone != "" {
			suffix = "+00"
		}
		return func(i int) string {
			return a.Value(i).ToTime(dt.Unit).UTC().Format("2006-01-02 15:04:05.999999") + suffix
		}
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return func(i int) string { return a.Value(i).ToTime(unit).Format("15:04:05.999999") }
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return func(i int) string { return a.Value(i).ToTime(unit).Format("15:04:05.999999") }
	case *array.Float64:
		return func(i int) string { return formatFloat(a.Value(i), 64) }
	case *array.Float32:
		return func(i int) string { return formatFloat(float64(a.Value(i)), 32) }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) string { return a.Value(i).ToString(scale) }
	}
	return a.ValueStr
}

func formatFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	// Like Python's repr (which DuckDB's output matches): positional notation for decimal
	// exponents in [-4, 16), scientific otherwise; always a ".0" on whole numbers.
	if v != 0 {
		if exp := math.Floor(math.Log10(math.Abs(v))); exp < -4 || exp >= 16 {
			return strconv.FormatFloat(v, 'e', -1, bits)
		}
	}
	s := strconv.FormatFloat(v, 'f', -1, bits)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// CastStringToDate parses YYYY-MM-DD strings into date32 values. A value that does not
// parse is a Conversion error, or NULL when try is set.
func CastStringToDate(mem memory.Allocator, a arrow.Array, try bool) (arrow.Array, error) {
	type strArr interface{ Value(int) string }
	sa, ok := a.(strArr)
	if !ok {
		return nil, dberr.NotSupported("cast from " + a.DataType().String() + " to date32")
	}
	out := NewFixed[int32](mem, arrow.FixedWidthTypes.Date32, a.Len())
	for i := range a.Len() {
		if !IsValid(a, i) {
			out.SetNull(i)
			continue
		}
		s := strings.TrimSpace(sa.Value(i))
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			if try {
				out.SetNull(i)
				continue
			}
			out.Release()
			return nil, dberr.New(dberr.Conversion, "date field value out of range: %q, expected format is (YYYY-MM-DD)", s)
		}
		out.Values[i] = int32(t.Unix() / 86400)
	}
	return out.Finish(), nil
}
