package bind

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// bindInterval turns an INTERVAL literal into a month_day_nano interval constant.
// INTERVAL '1 year 2 months 3 days', INTERVAL '3' DAY and INTERVAL 4 HOURS are accepted.
func bindInterval(e *ast.Interval) (plan.Expr, error) {
	fields := strings.Fields(strings.ToUpper(e.Text))
	if e.Unit != "" {
		fields = append(fields, e.Unit)
	}
	if len(fields) == 0 || len(fields)%2 != 0 {
		return nil, dberr.New(dberr.Conversion, "invalid INTERVAL %q", e.Text)
	}
	var v arrow.MonthDayNanoInterval
	for i := 0; i < len(fields); i += 2 {
		n, err := strconv.ParseInt(fields[i], 10, 32)
		if err != nil {
			return nil, dberr.New(dberr.Conversion, "invalid INTERVAL %q: %s is not a whole number", e.Text, fields[i])
		}
		if err := addIntervalUnit(&v, n, strings.TrimSuffix(fields[i+1], "S")); err != nil {
			return nil, dberr.New(dberr.Conversion, "invalid INTERVAL %q: %v", e.Text, err)
		}
	}
	return &plan.Literal{Value: scalar.NewMonthDayNanoIntervalScalar(v)}, nil
}

func addIntervalUnit(v *arrow.MonthDayNanoInterval, n int64, unit string) error {
	const sec = int64(1e9)
	switch unit {
	case "YEAR":
		v.Months += int32(12 * n)
	case "MONTH":
		v.Months += int32(n)
	case "WEEK":
		v.Days += int32(7 * n)
	case "DAY":
		v.Days += int32(n)
	case "HOUR":
		v.Nanoseconds += n * 3600 * sec
	case "MINUTE":
		v.Nanoseconds += n * 60 * sec
	case "SECOND":
		v.Nanoseconds += n * sec
	case "MILLISECOND":
		v.Nanoseconds += n * 1e6
	case "MICROSECOND":
		v.Nanoseconds += n * 1e3
	default:
		return dberr.New(dberr.Conversion, "unknown unit %s", unit)
	}
	return nil
}
