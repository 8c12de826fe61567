package bind

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindPatternFunc binds the pattern matches the parser turns into calls (LIKE ... ESCAPE,
// GLOB, SIMILAR TO) under their DuckDB function names, and regexp_full_match. Each becomes a
// match of an anchored RE2 expression (regexp_matches), so Substrait and the executor see
// only functions they already know. It also binds mod(a, b), the % operator. ok is false
// for any other name.
func (eb *exprBinder) bindPatternFunc(e *ast.FuncCall) (out plan.Expr, ok bool, err error) {
	switch e.Name {
	case "like_escape", "not_like_escape", "ilike_escape", "not_ilike_escape":
		out, err = eb.bindLikeEscape(e, strings.Contains(e.Name, "ilike"), strings.HasPrefix(e.Name, "not_"))
	case "glob":
		out, err = eb.bindGlob(e)
	case "regexp_full_match":
		out, err = eb.bindFullMatch(e)
	case "mod":
		if len(e.Args) != 2 {
			return nil, true, dberr.New(dberr.Binder, "mod takes two arguments")
		}
		out, err = eb.call("modulus", e.Args...)
	default:
		return nil, false, nil
	}
	return out, true, err
}

// neverMatches is an RE2 expression no string matches.
const neverMatches = `[^\x00-\x{10FFFF}]`

// bindPatternArgs binds a pattern call's arguments: n of them, or between lo and hi.
func (eb *exprBinder) bindPatternArgs(e *ast.FuncCall, lo, hi int) ([]plan.Expr, error) {
	if len(e.Args) < lo || len(e.Args) > hi {
		return nil, dberr.New(dberr.Binder, "No function matches the given name and argument types '%s' with %d arguments", e.Name, len(e.Args))
	}
	out := make([]plan.Expr, len(e.Args))
	for i, a := range e.Args {
		x, err := eb.bind(a)
		if err != nil {
			return nil, err
		}
		if _, ok := x.(*paramRef); ok {
			return nil, dberr.NotSupported(e.Name+" with a parameter").At(a.Position().Line, a.Position().Column)
		}
		out[i] = foldString(x)
	}
	return out, nil
}

// constString returns the value of a constant string argument; null reports a NULL
// constant. ok is false for anything that is not a constant.
func constString(x plan.Expr) (s string, null, ok bool) {
	lit, isLit := x.(*plan.Literal)
	if !isLit {
		if c, isCast := x.(*plan.Cast); isCast {
			if l, isLit := c.Input.(*plan.Literal); isLit && !l.Value.IsValid() {
				return "", true, true
			}
		}
		return "", false, false
	}
	if !lit.Value.IsValid() {
		return "", true, true
	}
	switch lit.Value.DataType().ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return lit.Value.String(), false, true
	}
	return "", false, false
}

// foldString folds concat calls over non-NULL string literals, so 'a' || '%' is a constant
// pattern.
func foldString(e plan.Expr) plan.Expr {
	c, ok := e.(*plan.Call)
	if !ok || c.Func != "concat" {
		return e
	}
	var sb strings.Builder
	for _, a := range c.Args {
		s, null, ok := constString(foldString(a))
		if !ok || null {
			return e
		}
		sb.WriteString(s)
	}
	return &plan.Literal{Value: scalar.NewStringScalar(sb.String())}
}

// regexpMatch builds regexp_matches(x, re) with re anchored to the whole string; NOT when
// negate is set. A NULL pattern gives NULL.
func regexpMatch(x plan.Expr, re string, negate bool) (plan.Expr, error) {
	call, err := functions.NewCall("regexp_matches", []plan.Expr{x, &plan.Literal{Value: scalar.NewStringScalar(`\A(?:` + re + `)\z`)}})
	if err != nil || !negate {
		return call, err
	}
	return functions.NewCall("not", []plan.Expr{call})
}

// nullBool is a NULL of type BOOLEAN.
func nullBool() plan.Expr {
	return &plan.Literal{Value: scalar.MakeNullScalar(arrow.FixedWidthTypes.Boolean)}
}

// bindLikeEscape binds x [NOT] [I]LIKE pattern ESCAPE esc. The pattern and the escape
// character must be constants; the match becomes an anchored regular expression.
func (eb *exprBinder) bindLikeEscape(e *ast.FuncCall, fold, negate bool) (plan.Expr, error) {
	args, err := eb.bindPatternArgs(e, 3, 3)
	if err != nil {
		return nil, err
	}
	if !functions.IsString(args[0].Type()) && args[0].Type().ID() != arrow.NULL {
		return nil, dberr.New(dberr.Binder, "No function matches the given name and argument types '%s(%s, ...)'", e.Name, args[0].Type())
	}
	pat, patNull, ok1 := constString(args[1])
	esc, escNull, ok2 := constString(args[2])
	if !ok1 || !ok2 {
		return nil, dberr.NotSupported("LIKE ... ESCAPE with a non-constant pattern or escape").At(e.Pos.Line, e.Pos.Column)
	}
	if patNull || escNull {
		return nullBool(), nil
	}
	re, err := likeToRegexp(pat, esc)
	if err != nil {
		return nil, err
	}
	if fold {
		re = "(?i)" + re
	}
	return regexpMatch(args[0], re, negate)
}

// likeToRegexp translates a LIKE pattern with escape character esc ("" for none) into an
// RE2 expression that matches the same strings (% any sequence, _ one character, and esc
// making the next character literal).
func likeToRegexp(pat, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", dberr.New(dberr.Parser, "Invalid escape string. Escape string must be empty or one character.")
	}
	escRune, _ := utf8.DecodeRuneInString(esc)
	var sb strings.Builder
	sb.WriteString("(?s)")
	escaped := false
	for _, r := range pat {
		switch {
		case escaped:
			sb.WriteString(regexp.QuoteMeta(string(r)))
			escaped = false
		case esc != "" && r == escRune:
			escaped = true
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if escaped {
		return "", dberr.New(dberr.Parser, "Like pattern must not end with escape character!")
	}
	return sb.String(), nil
}

// bindGlob binds x [NOT] GLOB pattern (glob(x, pattern)); the pattern must be a constant.
func (eb *exprBinder) bindGlob(e *ast.FuncCall) (plan.Expr, error) {
	args, err := eb.bindPatternArgs(e, 2, 2)
	if err != nil {
		return nil, err
	}
	if !functions.IsString(args[0].Type()) && args[0].Type().ID() != arrow.NULL {
		return nil, dberr.New(dberr.Binder, "No function matches the given name and argument types 'glob(%s, ...)'", args[0].Type())
	}
	pat, null, ok := constString(args[1])
	if !ok {
		return nil, dberr.NotSupported("GLOB with a non-constant pattern").At(e.Pos.Line, e.Pos.Column)
	}
	if null {
		return nullBool(), nil
	}
	return regexpMatch(args[0], globToRegexp(pat), false)
}

// globToRegexp translates a GLOB pattern (DuckDB's: * any sequence, ? one character,
// [set] and [!set] with ranges and a leading ] taken literally, \ making the next character
// literal) into an RE2 expression. A pattern DuckDB can never match (an unterminated [ or a
// trailing \) gives an expression that matches nothing. Not supported yet: DuckDB matches
// GLOB byte by byte, this translation character by character, so ? and [set] differ from
// DuckDB on non-ASCII text (é GLOB '?' is true here, false in DuckDB).
func globToRegexp(pat string) string {
	rs := []rune(pat)
	var sb strings.Builder
	sb.WriteString("(?s)")
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '*':
			sb.WriteString(".*")
		case '?':
			sb.WriteString(".")
		case '\\':
			if i+1 == len(rs) {
				return neverMatches
			}
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		case '[':
			class, next, ok := globClass(rs, i+1)
			if !ok {
				return neverMatches
			}
			sb.WriteString(class)
			i = next
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return sb.String()
}

// globClass translates the character set starting at rs[i] (just after its [) into an RE2
// class; next is the index of its closing ]. ok is false when the set is not closed or
// has a reversed range.
func globClass(rs []rune, i int) (class string, next int, ok bool) {
	var sb strings.Builder
	sb.WriteString("[")
	if i < len(rs) && rs[i] == '!' {
		sb.WriteString("^")
		i++
	}
	first := true
	for ; i < len(rs); i++ {
		r := rs[i]
		if r == ']' && !first {
			return sb.String() + "]", i, true
		}
		first = false
		if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
			if rs[i+2] < r {
				return "", 0, false
			}
			sb.WriteString(classRune(r) + "-" + classRune(rs[i+2]))
			i += 2
			continue
		}
		sb.WriteString(classRune(r))
	}
	return "", 0, false
}

// classRune writes r for use inside an RE2 character class.
func classRune(r rune) string {
	if strings.ContainsRune(`\]-^[`, r) {
		return `\` + string(r)
	}
	return string(r)
}

// bindFullMatch binds regexp_full_match(x, pattern[, options]) and x [NOT] SIMILAR TO
// pattern: the whole string must match the regular expression.
func (eb *exprBinder) bindFullMatch(e *ast.FuncCall) (plan.Expr, error) {
	args, err := eb.bindPatternArgs(e, 2, 3)
	if err != nil {
		return nil, err
	}
	pat, null, ok := constString(args[1])
	if null {
		return nullBool(), nil
	}
	if ok {
		anchored := &plan.Literal{Value: scalar.NewStringScalar(`\A(?:` + pat + `)\z`)}
		return functions.NewCall("regexp_matches", append([]plan.Expr{args[0], anchored}, args[2:]...))
	}
	prefix := &plan.Literal{Value: scalar.NewStringScalar(`\A(?:`)}
	suffix := &plan.Literal{Value: scalar.NewStringScalar(`)\z`)}
	anchored, err := functions.NewCall("concat", []plan.Expr{prefix, args[1], suffix})
	if err != nil {
		return nil, err
	}
	match, err := functions.NewCall("regexp_matches", append([]plan.Expr{args[0], anchored}, args[2:]...))
	if err != nil || !args[1].Nullable() {
		return match, err
	}
	// concat skips NULLs; a NULL pattern must give NULL.
	isNull, err := functions.NewCall("is_null", []plan.Expr{args[1]})
	if err != nil {
		return nil, err
	}
	return functions.NewCall("case", []plan.Expr{isNull, nullBool(), match})
}
