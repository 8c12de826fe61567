package functions

import (
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Cast converts e to type to. Literals are folded where the conversion is exact (a string
// literal parsed as a date, an integer literal widened); other expressions get a plan.Cast.
// A string literal that does not parse as the target type is a dberr.Conversion error.
func Cast(e plan.Expr, to arrow.DataType) (plan.Expr, error) {
	if arrow.TypeEqual(e.Type(), to) {
		return e, nil
	}
	if lit, ok := e.(*plan.Literal); ok {
		folded, ok, err := foldCast(lit, to)
		if err != nil || ok {
			return folded, err
		}
	}
	if e.Type().ID() == arrow.STRUCT && to.ID() == arrow.STRUCT {
		return CastStruct(e, to.(*arrow.StructType), false) // struct_cast.go
	}
	return &plan.Cast{Input: e, DataType: to}, nil
}

// foldCast converts a literal at bind time; ok is false when it leaves the cast to run time.
func foldCast(lit *plan.Literal, to arrow.DataType) (plan.Expr, bool, error) {
	v := lit.Value
	if !v.IsValid() {
		return &plan.Literal{Value: scalar.MakeNullScalar(to)}, true, nil
	}
	from := v.DataType()
	switch {
	case from.ID() == arrow.LIST || from.ID() == arrow.FIXED_SIZE_LIST:
		return foldListCast(lit, to)
	case from.ID() == arrow.STRUCT:
		return foldStructCast(lit, to) // struct.go
	case IsString(from):
		s, err := parseString(v.String(), to)
		if err != nil {
			return nil, false, err
		}
		return &plan.Literal{Value: s}, true, nil
	case IsInteger(from) && IsInteger(to):
		n, ok := IntValue(v)
		if !ok || !fitsInteger(n, to) {
			return nil, false, nil
		}
		s, err := scalar.MakeScalarParam(n, arrow.PrimitiveTypes.Int64)
		if err != nil {
			return nil, false, nil
		}
		out, err := s.CastTo(to)
		return &plan.Literal{Value: out}, err == nil, nil
	case IsInteger(from) && IsFloat(to), IsFloat(from) && IsFloat(to):
		out, err := v.CastTo(to)
		return &plan.Literal{Value: out}, err == nil, nil
	case IsInteger(from) && to.ID() == arrow.DECIMAL128:
		n, ok := IntValue(v)
		d := to.(*arrow.Decimal128Type)
		num := decimal128.FromI64(n).IncreaseScaleBy(d.Scale)
		if !ok || !num.FitsInPrecision(d.Precision) {
			return nil, false, nil
		}
		return &plan.Literal{Value: scalar.NewDecimal128Scalar(num, to)}, true, nil
	case from.ID() == arrow.DECIMAL128 && (to.ID() == arrow.DECIMAL128 || IsFloat(to)):
		return foldDecimalCast(v.(*scalar.Decimal128), to)
	case from.ID() == arrow.DATE32 && to.ID() == arrow.TIMESTAMP:
		days := int64(v.(*scalar.Date32).Value)
		ts := to.(*arrow.TimestampType)
		return &plan.Literal{Value: scalar.NewTimestampScalar(arrow.Timestamp(days*86400*unitsPerSecond(ts.Unit)), ts)}, true, nil
	}
	return nil, false, nil
}

// IntValue returns the value of a valid signed or unsigned integer scalar that fits int64.
func IntValue(s scalar.Scalar) (int64, bool) {
	if !s.IsValid() {
		return 0, false
	}
	switch v := s.(type) {
	case *scalar.Int8:
		return int64(v.Value), true
	case *scalar.Int16:
		return int64(v.Value), true
	case *scalar.Int32:
		return int64(v.Value), true
	case *scalar.Int64:
		return v.Value, true
	case *scalar.Uint8:
		return int64(v.Value), true
	case *scalar.Uint16:
		return int64(v.Value), true
	case *scalar.Uint32:
		return int64(v.Value), true
	case *scalar.Uint64:
		if v.Value <= math.MaxInt64 {
			return int64(v.Value), true
		}
	}
	return 0, false
}

func fitsInteger(n int64, t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8:
		return n >= math.MinInt8 && n <= math.MaxInt8
	case arrow.INT16:
		return n >= math.MinInt16 && n <= math.MaxInt16
	case arrow.INT32:
		return n >= math.MinInt32 && n <= math.MaxInt32
	case arrow.INT64:
		return true
	case arrow.UINT8:
		return n >= 0 && n <= math.MaxUint8
	case arrow.UINT16:
		return n >= 0 && n <= math.MaxUint16
	case arrow.UINT32:
		return n >= 0 && n <= math.MaxUint32
	case arrow.UINT64:
		return n >= 0
	}
	return false
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	}
	return 1e9
}

// parseString converts the text of a string literal to a scalar of type to.
func parseString(text string, to arrow.DataType) (scalar.Scalar, error) {
	switch to.ID() {
	case arrow.DATE32:
		d, err := ParseDate(text)
		if err != nil {
			return nil, err
		}
		return scalar.NewDate32Scalar(d), nil
	case arrow.TIMESTAMP:
		ts := to.(*arrow.TimestampType)
		t, err := ParseTimestamp(text)
		if err != nil {
			return nil, err
		}
		v, err := arrow.TimestampFromTime(t, ts.Unit)
		if err != nil {
			return nil, dberr.Wrap(dberr.OutOfRange, err, "timestamp %q out of range", text)
		}
		return scalar.NewTimestampScalar(v, ts), nil
	case arrow.BOOL:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true", "t", "1", "yes", "y":
			return scalar.NewBooleanScalar(true), nil
		case "false", "f", "0", "no", "n":
			return scalar.NewBooleanScalar(false), nil
		}
	}
	switch to.ID() {
	case arrow.STRING:
		return scalar.NewStringScalar(text), nil
	case arrow.LARGE_STRING:
		return scalar.NewLargeStringScalar(text), nil
	}
	s, err := scalar.ParseScalar(to, strings.TrimSpace(text))
	if err != nil {
		return nil, dberr.Wrap(dberr.Conversion, err, "Could not convert string '%s' to %s", text, to)
	}
	return s, nil
}

// ParseDate parses a DuckDB date literal, YYYY-MM-DD.
func ParseDate(text string) (arrow.Date32, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(text))
	if err != nil {
		return 0, dberr.New(dberr.Conversion, "date field value out of range: %q, expected format is (YYYY-MM-DD)", text)
	}
	return arrow.Date32FromTime(t), nil
}

var timestampLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseTimestamp parses a timestamp literal ('2026-05-01 12:00:00', optionally with
// fractional seconds and a +hh[:mm] offset). A literal without an offset is taken as UTC.
func ParseTimestamp(text string) (time.Time, error) {
	s := strings.TrimSpace(text)
	s = strings.TrimSuffix(strings.TrimSuffix(s, " UTC"), " utc")
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, dberr.New(dberr.Conversion, "timestamp field value out of range: %q, expected format is (YYYY-MM-DD HH:MM:SS[.US][±HH:MM])", text)
}
