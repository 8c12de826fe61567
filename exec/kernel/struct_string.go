package kernel

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// nestedStringer renders struct and list values as DuckDB casts them to VARCHAR:
// {'a': 1, 'b': x} and [1, NULL, 'b,c'], strings inside quoted only where DuckDB quotes
// them. ok is false for other types.
func nestedStringer(a arrow.Array) (func(int) string, bool) {
	switch a := a.(type) {
	case *array.Struct:
		t := a.DataType().(*arrow.StructType)
		fields := make([]func(int) string, a.NumField())
		for k := range fields {
			fields[k] = elemStringer(a.Field(k))
		}
		return func(i int) string {
			var b strings.Builder
			b.WriteByte('{')
			for k, f := range fields {
				if k > 0 {
					b.WriteString(", ")
				}
				b.WriteString("'" + strings.ReplaceAll(t.Field(k).Name, "'", "\\'") + "': " + f(i))
			}
			b.WriteByte('}')
			return b.String()
		}, true
	case array.ListLike:
		elems := elemStringer(a.ListValues())
		return func(i int) string {
			start, end := a.ValueOffsets(i)
			parts := make([]string, 0, end-start)
			for k := start; k < end; k++ {
				parts = append(parts, elems(int(k)))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}, true
	}
	return nil, false
}

// elemStringer renders a value inside a struct or list: NULL, quoted strings, or the
// value's VARCHAR cast.
func elemStringer(a arrow.Array) func(int) string {
	render := stringer(a)
	isString := a.DataType().ID() == arrow.STRING || a.DataType().ID() == arrow.LARGE_STRING
	return func(i int) string {
		if !IsValid(a, i) {
			return "NULL"
		}
		s := render(i)
		if isString && needsQuotes(s) {
			s = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
		}
		return s
	}
}

// needsQuotes reports whether DuckDB quotes a string inside a nested value's text.
func needsQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "null") || strings.TrimSpace(s) != s {
		return true
	}
	return strings.ContainsAny(s, `'",[]{}():\`)
}
