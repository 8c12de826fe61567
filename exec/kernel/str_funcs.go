package kernel

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// stringFuncs are the string functions, with DuckDB's semantics. Positions and lengths
// count characters (UTF-8 code points), not bytes.
var stringFuncs = map[string]ScalarDef{
	"lower":          {strUnary(strings.ToLower), 1, 1, true},
	"upper":          {strUnary(upper), 1, 1, true},
	"reverse":        {strUnary(reverseString), 1, 1, true},
	"length":         {lengthFunc, 1, 1, true},
	"substring":      {substringFunc, 2, 3, true},
	"trim":           {trimFunc(strings.Trim), 1, 2, true},
	"ltrim":          {trimFunc(strings.TrimLeft), 1, 2, true},
	"rtrim":          {trimFunc(strings.TrimRight), 1, 2, true},
	"concat":         {concatFunc, 1, -1, false},
	"replace":        {replaceFunc, 3, 3, true},
	"starts_with":    {strPredicate(strings.HasPrefix), 2, 2, true},
	"ends_with":      {strPredicate(strings.HasSuffix), 2, 2, true},
	"contains":       {strPredicate(strings.Contains), 2, 2, true},
	"strpos":         {strposFunc, 2, 2, true},
	"left":           {leftRightFunc(true), 2, 2, true},
	"right":          {leftRightFunc(false), 2, 2, true},
	"lpad":           {padFunc(true), 3, 3, true},
	"rpad":           {padFunc(false), 3, 3, true},
	"repeat":         {repeatFunc, 2, 2, true},
	"split_part":     {splitPartFunc, 3, 3, true},
	"regexp_matches": {regexpMatchesFunc, 2, 3, true},
	"regexp_replace": {regexpReplaceFunc, 3, 4, true},
	"ilike":          {likeFunc(true, false), 2, 2, true},
	"not_like":       {likeFunc(false, true), 2, 2, true},
	"not_ilike":      {likeFunc(true, true), 2, 2, true},
}

// strUnary maps every string through f.
func strUnary(f func(string) string) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		get, err := strGetter(args[0])
		if err != nil {
			return nil, err
		}
		return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
			return f(get(i)), true, nil
		})
	}
}

// upper upper-cases s; ß becomes ẞ (U+1E9E), as in DuckDB.
func upper(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "ß", "ẞ"))
}

func reverseString(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

func lengthFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	return buildInt64s(mem, args, args[0].Len(), func(i int) (int64, error) {
		return int64(utf8.RuneCountInString(get(i))), nil
	})
}

// Substring returns DuckDB's substring(s, start[, length]): start is 1-based; 0 is the
// position before the first character and a negative start counts from the end; a
// negative length takes the characters before start. The range is clipped to s.
func Substring(s string, start int64, length int64, hasLength bool) string {
	begin, end := substringBounds(int64(utf8.RuneCountInString(s)), start, length, hasLength)
	if end <= begin {
		return ""
	}
	return runeSlice(s, int(begin), int(end))
}

// substringBounds returns the character range [begin, end) of Substring for a string of
// n characters, clipped to [0, n]; end <= begin means the result is empty.
func substringBounds(n, start, length int64, hasLength bool) (begin, end int64) {
	switch {
	case start > 0:
		begin = start - 1
	case start == 0:
		begin = -1
	default:
		begin = n + start
	}
	end = n
	if hasLength {
		end = begin + length
		if length < 0 {
			begin, end = end, begin
		}
	}
	return max(begin, 0), min(end, n)
}

// runeSlice returns the characters [from, to) of s.
func runeSlice(s string, from, to int) string {
	if from >= to {
		return ""
	}
	bFrom, bTo, k := -1, len(s), 0
	for pos := range s {
		if k == from {
			bFrom = pos
		}
		if k == to {
			bTo = pos
			break
		}
		k++
	}
	if bFrom < 0 {
		return ""
	}
	return s[bFrom:bTo]
}

func substringFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if out, ok, err := substringDirect(mem, args); ok || err != nil {
		return out, err
	}
	return substringRows(mem, args)
}

// substringRows is the general per-row substring path (any string-like input).
func substringRows(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	start, err := intGetter(args[1])
	if err != nil {
		return nil, err
	}
	length := func(int) int64 { return 0 }
	if len(args) == 3 {
		if length, err = intGetter(args[2]); err != nil {
			return nil, err
		}
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		return Substring(get(i), start(i), length(i), len(args) == 3), true, nil
	})
}

// trimFunc is trim/ltrim/rtrim: spaces, or the characters of the second argument.
func trimFunc(f func(s, cutset string) string) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		gets, err := strGetters(args)
		if err != nil {
			return nil, err
		}
		return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
			cut := " "
			if len(gets) == 2 {
				cut = gets[1](i)
			}
			return f(gets[0](i), cut), true, nil
		})
	}
}

// concatFunc is DuckDB's concat: NULL arguments are skipped (concat(NULL, NULL) is the empty string).
// (The || operator, which returns NULL on a NULL operand, is not this function.)
func concatFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	gets := make([]func(int) string, len(args))
	for k, a := range args {
		if a.DataType().ID() == arrow.NULL {
			gets[k] = func(int) string { return "" }
			continue
		}
		g, err := strGetter(a)
		if err != nil {
			return nil, err
		}
		gets[k] = g
	}
	return buildStrings(mem, nil, args[0].Len(), func(i int) (string, bool, error) {
		var sb strings.Builder
		for k, g := range gets {
			if IsValid(args[k], i) {
				sb.WriteString(g(i))
			}
		}
		return sb.String(), true, nil
	})
}

func replaceFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	gets, err := strGetters(args)
	if err != nil {
		return nil, err
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		s, from := gets[0](i), gets[1](i)
		if from == "" {
			return s, true, nil
		}
		return strings.ReplaceAll(s, from, gets[2](i)), true, nil
	})
}

func strPredicate(f func(s, x string) bool) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		gets, err := strGetters(args)
		if err != nil {
			return nil, err
		}
		return buildBools(mem, args, args[0].Len(), func(i int) (bool, error) {
			return f(gets[0](i), gets[1](i)), nil
		})
	}
}

// strposFunc is the 1-based character position of the first occurrence, 0 if none.
func strposFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	gets, err := strGetters(args)
	if err != nil {
		return nil, err
	}
	return buildInt64s(mem, args, args[0].Len(), func(i int) (int64, error) {
		s := gets[0](i)
		at := strings.Index(s, gets[1](i))
		if at < 0 {
			return 0, nil
		}
		return int64(utf8.RuneCountInString(s[:at])) + 1, nil
	})
}

// leftRightFunc is left(s, n) / right(s, n): the first / last n characters; a negative n
// drops |n| characters from the other end.
func leftRightFunc(left bool) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		get, err := strGetter(args[0])
		if err != nil {
			return nil, err
		}
		count, err := intGetter(args[1])
		if err != nil {
			return nil, err
		}
		return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
			s, k := get(i), count(i)
			n := int64(utf8.RuneCountInString(s))
			if k < 0 {
				k = max(n+k, 0)
			}
			k = min(k, n)
			if left {
				return runeSlice(s, 0, int(k)), true, nil
			}
			return runeSlice(s, int(n-k), int(n)), true, nil
		})
	}
}

// padFunc is lpad/rpad(s, n, fill): s padded with fill (cycled) or truncated to n
// characters.
func padFunc(left bool) ScalarFunc {
	name := map[bool]string{true: "LPAD", false: "RPAD"}[left]
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		get, err := strGetter(args[0])
		if err != nil {
			return nil, err
		}
		count, err := intGetter(args[1])
		if err != nil {
			return nil, err
		}
		fill, err := strGetter(args[2])
		if err != nil {
			return nil, err
		}
		return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
			return pad(get(i), count(i), fill(i), left, name)
		})
	}
}

func pad(s string, width int64, fill string, left bool, name string) (string, bool, error) {
	n := int64(utf8.RuneCountInString(s))
	if width <= n {
		return runeSlice(s, 0, int(max(width, 0))), true, nil
	}
	if fill == "" {
		return "", false, dberr.New(dberr.InvalidInput, "Insufficient padding in %s.", name)
	}
	fr := []rune(fill)
	var sb strings.Builder
	for k := range width - n {
		sb.WriteRune(fr[int(k)%len(fr)])
	}
	if left {
		return sb.String() + s, true, nil
	}
	return s + sb.String(), true, nil
}

// maxRepeatBytes bounds repeat's output so that a huge count fails cleanly.
const maxRepeatBytes = 1 << 30

func repeatFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	count, err := intGetter(args[1])
	if err != nil {
		return nil, err
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		s, k := get(i), count(i)
		if k <= 0 || s == "" {
			return "", true, nil
		}
		if int64(len(s))*k > maxRepeatBytes || k > maxRepeatBytes {
			return "", false, dberr.New(dberr.OutOfRange, "repeat: result would exceed %d bytes", maxRepeatBytes)
		}
		return strings.Repeat(s, int(k)), true, nil
	})
}

// splitPartFunc is split_part(s, sep, k): the k-th field (1-based; negative counts from
// the end), the empty string when out of range. An empty separator splits into characters.
func splitPartFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	sep, err := strGetter(args[1])
	if err != nil {
		return nil, err
	}
	idx, err := intGetter(args[2])
	if err != nil {
		return nil, err
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		parts := strings.Split(get(i), sep(i))
		k := idx(i)
		switch {
		case k > 0 && k <= int64(len(parts)):
			return parts[k-1], true, nil
		case k < 0 && -k <= int64(len(parts)):
			return parts[int64(len(parts))+k], true, nil
		}
		return "", true, nil
	})
}

// likeFunc is ILIKE (case-insensitive LIKE) and the negations NOT LIKE / NOT ILIKE; the
// pattern may vary per row.
func likeFunc(fold, negate bool) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		gets, err := strGetters(args)
		if err != nil {
			return nil, err
		}
		cache := map[string]*LikeMatcher{}
		return buildBools(mem, args, args[0].Len(), func(i int) (bool, error) {
			s, p := gets[0](i), gets[1](i)
			if fold {
				s, p = strings.ToLower(s), strings.ToLower(p)
			}
			m, ok := cache[p]
			if !ok {
				m = NewLikeMatcher(p)
				cache[p] = m
			}
			return m.Match(s) != negate, nil
		})
	}
}
