package parse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

// tokKind classifies a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIdent           // unquoted identifier or keyword; text as written
	tQIdent          // "quoted identifier"; text unquoted
	tInt             // 42
	tDecimal         // 1.5, .5, 1e3
	tString          // 'abc'; text unquoted
	tParam           // ? or $n; text as written
	tOp              // punctuation and operators
)

// token is one lexeme with its source position.
type token struct {
	kind tokKind
	text string
	pos  ast.Pos
}

// upper returns the keyword form of an unquoted identifier, "" for other tokens.
func (t token) upper() string {
	if t.kind != tIdent {
		return ""
	}
	return strings.ToUpper(t.text)
}

// lexer splits SQL text into tokens.
type lexer struct {
	src       string
	off       int
	line, col int
}

// lex returns all tokens of src, ending with tEOF.
func lex(src string) ([]token, error) {
	lx := &lexer{src: src, line: 1, col: 1}
	var toks []token
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}

func (lx *lexer) peekByte(k int) byte {
	if lx.off+k < len(lx.src) {
		return lx.src[lx.off+k]
	}
	return 0
}

// advance moves past n bytes, tracking lines and columns (columns count runes).
func (lx *lexer) advance(n int) {
	end := lx.off + n
	for lx.off < end {
		r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
		lx.off += size
		if r == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
	}
}

func (lx *lexer) errorf(pos ast.Pos, format string, args ...any) error {
	return dberr.New(dberr.Parser, format, args...).At(pos.Line, pos.Column)
}

// skipSpace skips white space and -- and /* */ comments.
func (lx *lexer) skipSpace() error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			lx.advance(1)
		case c == '-' && lx.peekByte(1) == '-':
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.advance(1)
			}
		case c == '/' && lx.peekByte(1) == '*':
			pos := ast.Pos{Line: lx.line, Column: lx.col}
			end := strings.Index(lx.src[lx.off+2:], "*/")
			if end < 0 {
				return lx.errorf(pos, "unterminated /* comment")
			}
			lx.advance(end + 4)
		default:
			return nil
		}
	}
	return nil
}

func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	pos := ast.Pos{Line: lx.line, Column: lx.col}
	if lx.off >= len(lx.src) {
		return token{kind: tEOF, pos: pos}, nil
	}
	c := lx.src[lx.off]
	switch {
	case isIdentStart(c):
		if t := lx.ident(pos); t.text != "" {
			return t, nil
		}
	case isDigit(c) || (c == '.' && isDigit(lx.peekByte(1))):
		return lx.number(pos)
	case c == '\'':
		s, err := lx.quoted(pos, '\'')
		return token{kind: tString, text: s, pos: pos}, err
	case c == '"':
		s, err := lx.quoted(pos, '"')
		if err == nil && s == "" {
			err = lx.errorf(pos, "zero-length delimited identifier")
		}
		return token{kind: tQIdent, text: s, pos: pos}, err
	case c == '?':
		lx.advance(1)
		return token{kind: tParam, text: "?", pos: pos}, nil
	case c == '$' && isDigit(lx.peekByte(1)):
		start := lx.off
		lx.advance(1)
		for isDigit(lx.peekByte(0)) {
			lx.advance(1)
		}
		return token{kind: tParam, text: lx.src[start:lx.off], pos: pos}, nil
	}
	return lx.operator(pos)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (lx *lexer) ident(pos ast.Pos) token {
	start := lx.off
	for lx.off < len(lx.src) {
		r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		lx.advance(size)
	}
	return token{kind: tIdent, text: lx.src[start:lx.off], pos: pos}
}

func (lx *lexer) number(pos ast.Pos) (token, error) {
	start := lx.off
	kind := tInt
	for isDigit(lx.peekByte(0)) {
		lx.advance(1)
	}
	if lx.peekByte(0) == '.' {
		kind = tDecimal
		lx.advance(1)
		for isDigit(lx.peekByte(0)) {
			lx.advance(1)
		}
	}
	if c := lx.peekByte(0); c == 'e' || c == 'E' {
		k := 1
		if s := lx.peekByte(1); s == '+' || s == '-' {
			k = 2
		}
		if isDigit(lx.peekByte(k)) {
			kind = tDecimal
			lx.advance(k)
			for isDigit(lx.peekByte(0)) {
				lx.advance(1)
			}
		}
	}
	if isIdentStart(lx.peekByte(0)) {
		return token{}, lx.errorf(pos, "syntax error at or near %q", lx.src[start:lx.off+1])
	}
	return token{kind: kind, text: lx.src[start:lx.off], pos: pos}, nil
}

// quoted reads a string or identifier delimited by q, with doubled q as an escape.
func (lx *lexer) quoted(pos ast.Pos, q byte) (string, error) {
	lx.advance(1)
	var b strings.Builder
	for {
		if lx.off >= len(lx.src) {
			if q == '\'' {
				return "", lx.errorf(pos, "unterminated quoted string")
			}
			return "", lx.errorf(pos, "unterminated quoted identifier")
		}
		c := lx.src[lx.off]
		if c == q {
			if lx.peekByte(1) == q {
				b.WriteByte(q)
				lx.advance(2)
				continue
			}
			lx.advance(1)
			return b.String(), nil
		}
		_, size := utf8.DecodeRuneInString(lx.src[lx.off:])
		b.WriteString(lx.src[lx.off : lx.off+size])
		lx.advance(size)
	}
}

// operators, longest first.
var operators = []string{
	"::", ":=", "=>", "<=", ">=", "<>", "!=", "==", "||", "//", "&&", "@>", "<@",
	"(", ")", ",", ".", ";", "*", "+", "-", "/", "%", "=", "<", ">", "^", "[", "]", ":", "{", "}",
}

func (lx *lexer) operator(pos ast.Pos) (token, error) {
	rest := lx.src[lx.off:]
	for _, op := range operators {
		if strings.HasPrefix(rest, op) {
			lx.advance(len(op))
			switch op {
			case "!=":
				op = "<>"
			case "==":
				op = "="
			}
			return token{kind: tOp, text: op, pos: pos}, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return token{}, lx.errorf(pos, "syntax error at or near %q", string(r))
}
