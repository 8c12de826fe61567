package kernel

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// LikeMatcher matches strings against a SQL LIKE pattern: % matches any sequence of
// characters, _ exactly one character (a UTF-8 code point); every other character matches
// itself. There is no escape character, as in DuckDB's LIKE without ESCAPE. Matching is
// case-sensitive.
type LikeMatcher struct {
	pattern string
	match   func(s string) bool
}

// NewLikeMatcher compiles pattern.
func NewLikeMatcher(pattern string) *LikeMatcher {
	m := &LikeMatcher{pattern: pattern}
	body := strings.Trim(pattern, "%")
	switch {
	case !strings.ContainsAny(pattern, "%_"):
		m.match = func(s string) bool { return s == pattern }
	case !strings.Contains(pattern, "_") && strings.Contains(body, "%"): // '%special%requests%'
		segs := strings.Split(pattern, "%")
		m.match = func(s string) bool { return matchSegments(s, segs) }
	case strings.ContainsAny(body, "%_"):
		m.match = func(s string) bool { return likeMatch(s, pattern) }
	case pattern == "%"+body+"%" && body != "":
		m.match = func(s string) bool { return strings.Contains(s, body) }
	case pattern == body+"%":
		m.match = func(s string) bool { return strings.HasPrefix(s, body) }
	case pattern == "%"+body:
		m.match = func(s string) bool { return strings.HasSuffix(s, body) }
	default:
		m.match = func(s string) bool { return likeMatch(s, pattern) }
	}
	return m
}

// Match reports whether s matches the pattern.
func (m *LikeMatcher) Match(s string) bool { return m.match(s) }

// matchSegments matches s against a pattern of literal segments separated by % (no _; at
// least two segments): s starts with the first, ends with the last, and holds the others in
// order in between, each found leftmost (which is optimal with only %).
func matchSegments(s string, segs []string) bool {
	first, last := segs[0], segs[len(segs)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return true
}

// likeMatch is the general matcher: a linear scan that backtracks only to the last %.
func likeMatch(s, p string) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '%':
				starP, starS = pi, si
				pi++
				continue
			case '_':
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				pi++
				continue
			default:
				if p[pi] == s[si] {
					si++
					pi++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// Like evaluates arr LIKE pattern over a string or large_string array.
func Like(mem memory.Allocator, arr arrow.Array, m *LikeMatcher) (arrow.Array, error) {
	type strArr interface {
		arrow.Array
		Value(int) string
	}
	sa, ok := arr.(strArr)
	if !ok || arr.DataType().ID() == arrow.BINARY {
		return nil, dberr.NotSupported("LIKE on " + arr.DataType().String())
	}
	n := arr.Len()
	out := NewBools(mem, n)
	for i := range n {
		if !IsValid(arr, i) {
			out.SetNull(i)
			continue
		}
		out.Set(i, m.Match(sa.Value(i)))
	}
	return out.Finish(), nil
}

// LikeColumn evaluates arr LIKE pattern row by row, with a pattern per row; each distinct
// pattern is compiled once.
func LikeColumn(mem memory.Allocator, arr, pattern arrow.Array) (arrow.Array, error) {
	sa, ok1 := arr.(interface{ Value(int) string })
	pa, ok2 := pattern.(interface{ Value(int) string })
	if !ok1 || !ok2 || arr.DataType().ID() == arrow.BINARY {
		return nil, dberr.NotSupported("LIKE on " + arr.DataType().String() + " with pattern " + pattern.DataType().String())
	}
	cache := map[string]*LikeMatcher{}
	n := arr.Len()
	out := NewBools(mem, n)
	for i := range n {
		if !IsValid(arr, i) || !IsValid(pattern, i) {
			out.SetNull(i)
			continue
		}
		p := pa.Value(i)
		m, ok := cache[p]
		if !ok {
			m = NewLikeMatcher(p)
			cache[strings.Clone(p)] = m
		}
		out.Set(i, m.Match(sa.Value(i)))
	}
	return out.Finish(), nil
}
