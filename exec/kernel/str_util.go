package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// ScalarFunc computes a scalar function over evaluated arguments of equal length. The
// result may have a different (e.g. wider) type than the call's; the caller casts it.
type ScalarFunc func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error)

// ScalarDef is a scalar function of this package with its arity bounds (Max -1: any
// number). Strict functions return NULL when any argument is NULL; the kernel handles
// NULL rows itself, Strict only tells the caller that an argument of type NULL makes the
// whole result NULL.
type ScalarDef struct {
	Fn       ScalarFunc
	Min, Max int
	Strict   bool
}

// LookupScalar returns the string, math or date function named name (the canonical name
// of plan.Call.Func).
func LookupScalar(name string) (ScalarDef, bool) {
	if canonical, ok := scalarAliases[name]; ok {
		name = canonical
	}
	for _, m := range []map[string]ScalarDef{stringFuncs, mathFuncs, dateFuncs} {
		if d, ok := m[name]; ok {
			return d, true
		}
	}
	return ScalarDef{}, false
}

// scalarAliases are DuckDB's other names for the same functions.
var scalarAliases = map[string]string{
	"substr": "substring", "pow": "power", "log": "log10", "ceiling": "ceil",
	"char_length": "length", "character_length": "length", "lcase": "lower", "ucase": "upper",
	"instr": "strpos", "datepart": "date_part", "datetrunc": "date_trunc", "prefix": "starts_with",
	"suffix": "ends_with",
}

// ScalarNames lists every function LookupScalar knows (for tests and error messages).
func ScalarNames() []string {
	var out []string
	for _, m := range []map[string]ScalarDef{stringFuncs, mathFuncs, dateFuncs} {
		for n := range m {
			out = append(out, n)
		}
	}
	return out
}

// strGetter returns the values of a string array.
func strGetter(a arrow.Array) (func(int) string, error) {
	switch a := a.(type) {
	case *array.String:
		return a.Value, nil
	case *array.LargeString:
		return a.Value, nil
	case *array.Binary:
		return a.ValueString, nil
	case *array.LargeBinary:
		return func(i int) string { return string(a.Value(i)) }, nil
	}
	return nil, dberr.New(dberr.Internal, "want a string argument, got %s", a.DataType())
}

// intGetter returns the values of an integer array as int64.
func intGetter(a arrow.Array) (func(int) int64, error) {
	switch a := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Int64:
		return a.Value, nil
	case *array.Uint8:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Uint16:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Uint32:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	case *array.Uint64:
		return func(i int) int64 { return int64(a.Value(i)) }, nil
	}
	return nil, dberr.New(dberr.Internal, "want an integer argument, got %s", a.DataType())
}

// strGetters returns getters for every argument (which must all be strings).
func strGetters(args []arrow.Array) ([]func(int) string, error) {
	out := make([]func(int) string, len(args))
	for i, a := range args {
		g, err := strGetter(a)
		if err != nil {
			return nil, err
		}
		out[i] = g
	}
	return out, nil
}

// allValid reports whether row i of every array is non-NULL.
func allValid(args []arrow.Array, i int) bool {
	for _, a := range args {
		if !IsValid(a, i) {
			return false
		}
	}
	return true
}

// buildStrings builds a utf8 array of n rows; f returns each row's value, or ok false for
// NULL. Rows where some argument is NULL are NULL without calling f.
func buildStrings(mem memory.Allocator, args []arrow.Array, n int, f func(i int) (string, bool, error)) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		if !allValid(args, i) {
			b.AppendNull()
			continue
		}
		v, ok, err := f(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// buildInt64s builds an int64 array the way buildStrings builds strings.
func buildInt64s(mem memory.Allocator, args []arrow.Array, n int, f func(i int) (int64, error)) (arrow.Array, error) {
	out := NewFixed[int64](mem, arrow.PrimitiveTypes.Int64, n)
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		v, err := f(i)
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Values[i] = v
	}
	return out.Finish(), nil
}

// buildBools builds a boolean array the way buildStrings builds strings.
func buildBools(mem memory.Allocator, args []arrow.Array, n int, f func(i int) (bool, error)) (arrow.Array, error) {
	out := NewBools(mem, n)
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		v, err := f(i)
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Set(i, v)
	}
	return out.Finish(), nil
}

// buildFloat64s builds a float64 array; f returns ok false for NULL.
func buildFloat64s(mem memory.Allocator, args []arrow.Array, n int, f func(i int) (float64, bool, error)) (arrow.Array, error) {
	out := NewFixed[float64](mem, arrow.PrimitiveTypes.Float64, n)
	for i := range n {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		v, ok, err := f(i)
		if err != nil {
			out.Release()
			return nil, err
		}
		if !ok {
			out.SetNull(i)
			continue
		}
		out.Values[i] = v
	}
	return out.Finish(), nil
}
