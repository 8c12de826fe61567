package kernel_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/testutil"
)

// The scalar kernels are checked against DuckDB itself: every case is rendered as a SQL
// expression, all of them are evaluated in one DuckDB process (the project venv), and
// each kernel result must equal DuckDB's value. Arguments are arrays at offset 1 whose
// second row is NULL, so every case also checks offsets and (for strict functions) NULLs.

type (
	dec struct { // a decimal argument
		v           string
		prec, scale int32
	}
	ts string   // a timestamp argument, "2024-03-15 10:11:12.5"
	iv struct { // an interval argument
		months, days int32
		micros       int64
	}
	null struct{ dt arrow.DataType } // a NULL argument of a type
)

// fcase is one call: fn over args. sql overrides the rendered expression ("%s" verbs take
// the rendered arguments). errSub, when set, is a substring of the expected error.
type fcase struct {
	fn     string
	args   []any
	sql    string
	errSub string
}

func sqlLiteral(v any) string {
	switch v := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case int64:
		return fmt.Sprintf("(%d)::BIGINT", v)
	case int32:
		return fmt.Sprintf("(%d)::INTEGER", v)
	case float64:
		return fmt.Sprintf("'%s'::DOUBLE", strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		return strconv.FormatBool(v)
	case dec:
		return fmt.Sprintf("%s::DECIMAL(%d,%d)", v.v, v.prec, v.scale)
	case arrow.Date32:
		return "DATE '" + v.FormattedString() + "'"
	case ts:
		return "TIMESTAMP '" + string(v) + "'"
	case iv:
		return fmt.Sprintf("(INTERVAL (%d) MONTH + INTERVAL (%d) DAY + INTERVAL (%d) MICROSECOND)", v.months, v.days, v.micros)
	case null:
		return "NULL"
	}
	panic(fmt.Sprintf("sqlLiteral %T", v))
}

func (c fcase) render() string {
	lits := make([]any, len(c.args))
	strs := make([]string, len(c.args))
	for i, a := range c.args {
		strs[i] = sqlLiteral(a)
		lits[i] = strs[i]
	}
	if c.sql != "" {
		return fmt.Sprintf(c.sql, lits...)
	}
	return c.fn + "(" + strings.Join(strs, ", ") + ")"
}

// argArray builds [value, NULL] (at offset 1 of a larger array) for one argument.
func argArray(t *testing.T, mem memory.Allocator, v any) arrow.Array {
	var dt arrow.DataType
	var app func(b array.Builder)
	switch v := v.(type) {
	case string:
		dt, app = arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).Append(v) }
	case int64:
		dt, app = arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(v) }
	case int32:
		dt, app = arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(v) }
	case float64:
		dt, app = arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(v) }
	case bool:
		dt, app = arrow.FixedWidthTypes.Boolean, func(b array.Builder) { b.(*array.BooleanBuilder).Append(v) }
	case dec:
		dt = &arrow.Decimal128Type{Precision: v.prec, Scale: v.scale}
		n, err := decimal128.FromString(v.v, v.prec, v.scale)
		require.NoError(t, err)
		app = func(b array.Builder) { b.(*array.Decimal128Builder).Append(n) }
	case arrow.Date32:
		dt, app = arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).Append(v) }
	case ts:
		dt = &arrow.TimestampType{Unit: arrow.Microsecond}
		tm, err := time.Parse("2006-01-02 15:04:05.999999", string(v))
		require.NoError(t, err)
		app = func(b array.Builder) { b.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro())) }
	case iv:
		dt = arrow.FixedWidthTypes.MonthDayNanoInterval
		app = func(b array.Builder) {
			b.(*array.MonthDayNanoIntervalBuilder).Append(arrow.MonthDayNanoInterval{Months: v.months, Days: v.days, Nanoseconds: v.micros * 1000})
		}
	case null:
		dt, app = v.dt, func(b array.Builder) { b.AppendNull() }
	default:
		t.Fatalf("argArray %T", v)
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	app(b) // junk row, sliced off
	app(b)
	b.AppendNull()
	full := b.NewArray()
	defer full.Release()
	return array.NewSlice(full, 1, 3)
}

// duckdbValues evaluates the expressions in one DuckDB process and returns each value
// rendered as JSON (see the script), or the error message prefixed by "ERROR:".
func duckdbValues(t *testing.T, exprs []string) []any {
	t.Helper()
	py := testutil.Python(t)
	in, err := json.Marshal(exprs)
	require.NoError(t, err)
	cmd := exec.Command(py, "-c", duckdbScript)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err, "duckdb script: %s", out)
	var vals []any
	require.NoError(t, json.Unmarshal(out, &vals))
	require.Len(t, vals, len(exprs))
	return vals
}

const duckdbScript = `
import datetime, decimal, json, math, sys
import duckdb
con = duckdb.connect()
con.sql("SET TimeZone='UTC'")
def enc(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return str(v) if (math.isnan(v) or math.isinf(v)) else v
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, datetime.datetime):
        return "ts:" + v.replace(tzinfo=None).isoformat(" ", "microseconds")
    if isinstance(v, datetime.date):
        return "date:" + v.isoformat()
    if isinstance(v, datetime.timedelta):
        return "us:%d" % (v // datetime.timedelta(microseconds=1))
    return "repr:" + repr(v)
out = []
for e in json.load(sys.stdin):
    try:
        out.append(enc(con.sql("SELECT " + e).fetchall()[0][0]))
    except Exception as ex:
        out.append("ERROR:" + str(ex))
print(json.dumps(out))
`

// goValue renders row i of a kernel result like the script renders DuckDB's values.
func goValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Date32:
		return "date:" + a.Value(i).FormattedString()
	case *array.Timestamp:
		tm := a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit)
		return "ts:" + tm.Format("2006-01-02 15:04:05.000000")
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return fmt.Sprintf("us:%d", int64(v.Days)*86_400_000_000+v.Nanoseconds/1000)
	case *array.Decimal128:
		return a.Value(i).ToFloat64(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Float64:
		return jsonFloat(a.Value(i))
	case *array.Float32:
		return jsonFloat(float64(a.Value(i)))
	case *array.Int8:
		return float64(a.Value(i))
	case *array.Int32:
		return float64(a.Value(i))
	case *array.Int64:
		return float64(a.Value(i))
	}
	return "repr:" + a.ValueStr(i)
}

func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return f
}

func sameValue(want, got any) bool {
	wf, ok1 := want.(float64)
	gf, ok2 := got.(float64)
	if ok1 && ok2 {
		return math.Abs(wf-gf) <= 1e-9*math.Max(1, math.Abs(wf))
	}
	return want == got
}

// callKernel runs fn over args; add/subtract go to DateArith.
func callKernel(mem memory.Allocator, fn string, args []arrow.Array) (arrow.Array, bool, error) {
	switch fn {
	case "add":
		out, err := kernel.DateArith(mem, kernel.OpAdd, args[0], args[1])
		return out, true, err
	case "subtract":
		out, err := kernel.DateArith(mem, kernel.OpSubtract, args[0], args[1])
		return out, true, err
	}
	def, ok := kernel.LookupScalar(fn)
	if !ok {
		return nil, false, fmt.Errorf("no kernel %s", fn)
	}
	out, err := def.Fn(mem, args)
	return out, def.Strict, err
}

func runDiff(t *testing.T, cases []fcase) {
	t.Helper()
	exprs := make([]string, len(cases))
	for i, c := range cases {
		exprs[i] = c.render()
	}
	want := duckdbValues(t, exprs)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d:%s", i, exprs[i]), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			args := make([]arrow.Array, len(c.args))
			for k, a := range c.args {
				args[k] = argArray(t, mem, a)
				defer args[k].Release()
			}
			out, strict, err := callKernel(mem, c.fn, args)
			if w, isErr := want[i].(string); isErr && strings.HasPrefix(w, "ERROR:") {
				if err == nil {
					out.Release()
				}
				require.Error(t, err, "DuckDB fails: %s", w)
				if c.errSub != "" {
					require.Contains(t, w, c.errSub, "DuckDB's error")
					require.Contains(t, err.Error(), c.errSub)
				}
				return
			}
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, 2, out.Len())
			got := goValue(out, 0)
			require.True(t, sameValue(want[i], got), "%s: DuckDB %v (%T), kernel %v (%T)", exprs[i], want[i], want[i], got, got)
			if strict {
				require.True(t, out.IsNull(1), "a NULL argument gives NULL")
			}
		})
	}
}

func TestStringFuncsVsDuckDB(t *testing.T) {
	s := func(fn string, args ...any) fcase { return fcase{fn: fn, args: args} }
	runDiff(t, []fcase{
		s("lower", "ÀBc"), s("upper", "straße"), s("upper", "héllo"), s("reverse", "héllo"), s("reverse", ""),
		s("length", "héllo🦆"), s("length", ""),
		s("substring", "hello", int64(0), int64(2)), s("substring", "hello", int64(-3)),
		s("substring", "hello", int64(-3), int64(2)), s("substring", "hello", int64(2)),
		s("substring", "hello", int64(0)), s("substring", "hello", int64(10)),
		s("substring", "hello", int64(2), int64(0)), s("substring", "hello", int64(-10), int64(3)),
		s("substring", "hello", int64(-10), int64(7)), s("substring", "héllo", int64(2), int64(2)),
		s("substring", "hello", int64(-1), int64(5)), s("substring", "hello", int64(3), int64(-2)),
		s("substring", "hello", int64(0), int64(-2)), s("substring", "héllo", int64(5), int64(9)),
		s("trim", "  a b  "), s("trim", "xxaxx", "x"), s("ltrim", "  a "), s("rtrim", "xyax", "xy"),
		s("trim", "abc", ""), s("rtrim", "  "),
		s("concat", "a", "b", "c"), s("concat", "a", null{arrow.BinaryTypes.String}, "b"),
		s("replace", "aaa", "a", "bb"), s("replace", "abc", "", "x"), s("replace", "héllo", "l", "L"),
		s("starts_with", "abc", "ab"), s("starts_with", "abc", ""), s("ends_with", "abc", "bc"),
		s("ends_with", "abc", "b"), s("contains", "abc", "b"), s("contains", "abc", ""),
		s("strpos", "héllo", "l"), s("strpos", "abc", ""), s("strpos", "abc", "z"),
		s("left", "héllo", int64(2)), s("left", "hello", int64(-2)), s("left", "abc", int64(0)),
		s("left", "abc", int64(10)), s("right", "hello", int64(2)), s("right", "hello", int64(-2)),
		s("right", "héllo", int64(-10)),
		s("lpad", "abc", int32(5), "xy"), s("lpad", "abcdef", int32(3), "x"), s("rpad", "abc", int32(6), "xy"),
		s("lpad", "abc", int32(-1), "x"), s("rpad", "é", int32(3), "ü"),
		{fn: "lpad", args: []any{"abc", int32(5), ""}, errSub: "Insufficient padding in LPAD"},
		s("repeat", "ab", int64(3)), s("repeat", "ab", int64(-1)), s("repeat", "", int64(5)),
		s("split_part", "a,b,c", ",", int64(2)), s("split_part", "a,b,c", ",", int64(-1)),
		s("split_part", "a,b,c", ",", int64(5)), s("split_part", "a,b,c", ",", int64(0)),
		s("split_part", "abc", "", int64(2)), s("split_part", "a,b", ";", int64(1)),
		s("split_part", "a,,b", ",", int64(2)), s("split_part", "a,b,c", ",", int64(-3)),
		s("regexp_matches", "abc", "b"), s("regexp_matches", "abc", "^b"),
		s("regexp_matches", "ABC", "b", "i"), s("regexp_matches", "a\nb", "a.b"),
		s("regexp_matches", "a\nb", "a.b", "s"), s("regexp_matches", "a.c", ".", "l"),
		s("regexp_matches", "abc", "a.c", "l"),
		{fn: "regexp_matches", args: []any{"abc", "("}, errSub: "missing"},
		s("regexp_replace", "abcabc", "b", "X"), s("regexp_replace", "abcabc", "b", "X", "g"),
		s("regexp_replace", "abc", "(b)", `[\1]`), s("regexp_replace", "abc", "b", "$0"),
		s("regexp_replace", "abc", "B", "X", "gi"), s("regexp_replace", "aaa", "a*", "X", "g"),
		s("regexp_replace", "abc", "(a)(b)", `\2\1\0`), s("regexp_replace", "abc", "z", "X"),
		{fn: "ilike", args: []any{"ABC", "a%"}, sql: "%s ILIKE %s"},
		{fn: "ilike", args: []any{"ÀBC", "à_c"}, sql: "%s ILIKE %s"},
		{fn: "ilike", args: []any{"ABC", "b%"}, sql: "%s ILIKE %s"},
		{fn: "not_like", args: []any{"abc", "a%"}, sql: "%s NOT LIKE %s"},
		{fn: "not_like", args: []any{"abc", "b%"}, sql: "%s NOT LIKE %s"},
		{fn: "not_ilike", args: []any{"ABC", "a_c"}, sql: "%s NOT ILIKE %s"},
		{fn: "not_ilike", args: []any{"ABC", "a_"}, sql: "%s NOT ILIKE %s"},
	})
}

// concat skips NULLs: a row whose arguments are all NULL gives the empty string.
func TestConcatNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a, b := argArray(t, mem, "x"), argArray(t, mem, null{arrow.BinaryTypes.String})
	defer a.Release()
	defer b.Release()
	def, ok := kernel.LookupScalar("concat")
	require.True(t, ok)
	out, err := def.Fn(mem, []arrow.Array{a, b})
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, "x", out.(*array.String).Value(0))
	require.True(t, out.IsValid(1))
	require.Empty(t, out.(*array.String).Value(1))
}

func TestScalarRegistry(t *testing.T) {
	want := []string{"lower", "upper", "length", "substring", "trim", "ltrim", "rtrim", "concat", "replace",
		"starts_with", "ends_with", "contains", "strpos", "left", "right", "lpad", "rpad", "reverse", "repeat",
		"split_part", "regexp_matches", "regexp_replace", "ilike", "not_like", "not_ilike",
		"abs", "ceil", "floor", "round", "sqrt", "power", "ln", "log10", "log2", "exp", "sign", "greatest", "least",
		"nullif", "is_distinct_from", "is_not_distinct_from",
		"extract", "date_part", "date_trunc", "year", "month", "day",
		"sin", "cos", "tan", "asin", "acos", "atan", "cot", "atan2", "degrees", "radians", "cbrt",
		"isnan", "isinf", "isfinite", "factorial", "gcd", "lcm", "trunc", "ascii", "chr",
		"date_diff", "last_day", "strftime"}
	require.ElementsMatch(t, want, kernel.ScalarNames())
}
