package kernel

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

func init() {
	stringFuncs["ascii"] = ScalarDef{asciiFunc, 1, 1, true}
	stringFuncs["chr"] = ScalarDef{chrFunc, 1, 1, true}
	scalarAliases["ord"] = "ascii"
}

// asciiFunc is ascii(s): the code point of s's first character (INTEGER), 0 for ”.
func asciiFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	n := args[0].Len()
	out := NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, n)
	for i := range n {
		if !IsValid(args[0], i) {
			out.SetNull(i)
			continue
		}
		if s := get(i); s != "" {
			r, _ := utf8.DecodeRuneInString(s)
			out.Values[i] = r
		}
	}
	return out.Finish(), nil
}

// chrFunc is chr(n): the one-character string of code point n; n outside Unicode is an
// error, as in DuckDB.
func chrFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := intGetter(args[0])
	if err != nil {
		return nil, err
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		c := get(i)
		if c < 0 || c > utf8.MaxRune || !utf8.ValidRune(rune(c)) {
			return "", false, dberr.New(dberr.InvalidInput, "Invalid UTF8 Codepoint %d", c)
		}
		return string(rune(c)), true, nil
	})
}
