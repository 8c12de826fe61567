package kernel

import (
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// regexpCache compiles each distinct (pattern, options) pair once per batch. Go's regexp
// is RE2, the engine DuckDB uses, so patterns mean the same.
type regexpCache map[string]*regexpEntry

type regexpEntry struct {
	re     *regexp.Regexp
	global bool
}

// get compiles pattern with DuckDB's options: c (case-sensitive), i (case-insensitive),
// s (. matches newline), m/n/p (newline-sensitive: the default), l (literal), g (global,
// for regexp_replace).
func (c regexpCache) get(pattern, options string) (*regexpEntry, error) {
	key := options + "\x00" + pattern
	if e, ok := c[key]; ok {
		return e, nil
	}
	e := &regexpEntry{}
	var flags string
	for _, o := range options {
		switch o {
		case 'c':
			flags = strings.ReplaceAll(flags, "i", "")
		case 'i':
			flags += "i"
		case 's':
			flags += "s"
		case 'm', 'n', 'p':
		case 'l':
			pattern = regexp.QuoteMeta(pattern)
		case 'g':
			e.global = true
		default:
			return nil, dberr.New(dberr.InvalidInput, "Unrecognized Regex option %c", o)
		}
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid regular expression %q", pattern)
	}
	e.re = re
	c[key] = e
	return e, nil
}

// optionsGetter returns the options argument (args[k]) or "" when there is none.
func optionsGetter(args []arrow.Array, k int) (func(int) string, error) {
	if len(args) <= k {
		return func(int) string { return "" }, nil
	}
	return strGetter(args[k])
}

// regexpMatchesFunc is regexp_matches(s, pattern[, options]): whether the pattern matches
// anywhere in s.
func regexpMatchesFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	gets, err := strGetters(args[:2])
	if err != nil {
		return nil, err
	}
	opts, err := optionsGetter(args, 2)
	if err != nil {
		return nil, err
	}
	cache := regexpCache{}
	return buildBools(mem, args, args[0].Len(), func(i int) (bool, error) {
		e, err := cache.get(gets[1](i), opts(i))
		if err != nil {
			return false, err
		}
		return e.re.MatchString(gets[0](i)), nil
	})
}

// regexpReplaceFunc is regexp_replace(s, pattern, replacement[, options]): the first match
// (every match with option g) replaced; \0 to \9 in the replacement insert groups and \\ a
// backslash.
func regexpReplaceFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	gets, err := strGetters(args[:3])
	if err != nil {
		return nil, err
	}
	opts, err := optionsGetter(args, 3)
	if err != nil {
		return nil, err
	}
	cache := regexpCache{}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		e, err := cache.get(gets[1](i), opts(i))
		if err != nil {
			return "", false, err
		}
		s, repl := gets[0](i), goTemplate(gets[2](i))
		if e.global {
			return e.re.ReplaceAllString(s, repl), true, nil
		}
		loc := e.re.FindStringSubmatchIndex(s)
		if loc == nil {
			return s, true, nil
		}
		out := e.re.ExpandString([]byte(s[:loc[0]]), repl, s, loc)
		return string(out) + s[loc[1]:], true, nil
	})
}

// goTemplate rewrites an RE2 replacement (\1, \\) as a Go template (${1}, $$ for $).
func goTemplate(r string) string {
	var sb strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			sb.WriteString("$$")
		case c == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			sb.WriteString("${" + string(r[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == '\\':
			sb.WriteByte('\\')
			i++
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
