package slt

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// ErrSyntax classifies malformed test files.
var ErrSyntax = errors.New("slt syntax error")

// ParseFile reads and parses the file at path; name is how the file is reported.
func ParseFile(path, name string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read test file %s: %w", path, err)
	}
	return Parse(name, string(b))
}

// Parse parses the text of a test file.
func Parse(name, text string) (*File, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	p := &parser{f: &File{Name: name, lines: lines}, lines: lines}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.f, nil
}

type parser struct {
	f     *File
	lines []string
	i     int // next line index
	conds []Condition
	skip  bool // inside "mode skip"
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrSyntax, p.f.Name, p.i, fmt.Sprintf(format, args...))
}

func (p *parser) run() error {
	for p.i < len(p.lines) {
		line := strings.TrimSpace(p.lines[p.i])
		p.i++
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		halt, err := p.directive(fields, line)
		if err != nil {
			return err
		}
		if halt {
			return nil
		}
	}
	if len(p.conds) > 0 {
		return p.errorf("skipif/onlyif at the end of the file")
	}
	return nil
}

// directive handles one non-comment line outside a record; it reports whether to halt.
func (p *parser) directive(fields []string, line string) (bool, error) {
	switch fields[0] {
	case "halt":
		return true, nil
	case "mode":
		if len(fields) != 2 || (fields[1] != "skip" && fields[1] != "unskip") {
			return false, p.errorf("want mode skip|unskip, got %q", line)
		}
		p.skip = fields[1] == "skip"
	case "require":
		if len(fields) != 2 {
			return false, p.errorf("want require <feature>, got %q", line)
		}
		p.f.Requires = append(p.f.Requires, Require{Feature: fields[1], Before: len(p.f.Records)})
	case "skipif", "onlyif":
		tag := strings.Join(fields[1:], " ")
		if tag == "" {
			return false, p.errorf("%s needs a tag", fields[0])
		}
		p.conds = append(p.conds, Condition{Skip: fields[0] == "skipif", Tag: tag})
	case "hash-threshold":
		// Accepted for compatibility; results are always compared in full.
	case "statement":
		return false, p.statement(fields, line)
	case "query":
		return false, p.query(fields)
	default:
		return false, p.errorf("not supported yet: directive %q", fields[0])
	}
	return false, nil
}

func (p *parser) statement(fields []string, line string) error {
	r := &Record{Kind: Statement, Line: p.i, headerIdx: p.i - 1}
	switch {
	case len(fields) == 2 && fields[1] == "ok":
	case len(fields) >= 2 && fields[1] == "error":
		r.ExpectError = true
		rest := strings.TrimSpace(line[len("statement"):])
		r.ErrorPattern = strings.TrimSpace(strings.TrimPrefix(rest, "error"))
	default:
		return p.errorf("want statement ok|error [regex], got %q", line)
	}
	sql, sep := p.sql()
	if sql == "" {
		return p.errorf("statement without SQL")
	}
	r.SQL = sql
	if sep {
		if !r.ExpectError {
			return p.errorf("---- after statement ok")
		}
		msg := strings.Join(p.block(), "\n")
		if r.ErrorPattern != "" && msg != "" {
			return p.errorf("error pattern both on the statement line and in a ---- block")
		}
		if msg != "" {
			r.ErrorPattern = msg
		}
	}
	if r.ErrorPattern != "" {
		if _, err := regexp.Compile(r.ErrorPattern); err != nil {
			return p.errorf("bad error pattern: %v", err)
		}
	}
	p.add(r)
	return nil
}

func (p *parser) query(fields []string) error {
	r := &Record{Kind: Query, Line: p.i, headerIdx: p.i - 1}
	if len(fields) < 2 {
		return p.errorf("query needs a type string")
	}
	r.Types = fields[1]
	for _, c := range r.Types {
		if !strings.ContainsRune("ITRBD?", c) {
			return p.errorf("bad column type %q in %q", c, r.Types)
		}
	}
	rest := fields[2:]
	if len(rest) > 0 {
		if m, ok := parseSortMode(rest[0]); ok {
			r.Sort = m
			rest = rest[1:]
		}
	}
	switch len(rest) {
	case 0:
	case 1:
		r.Label = rest[0]
	default:
		return p.errorf("unexpected %q after query", strings.Join(rest, " "))
	}
	sql, sep := p.sql()
	if sql == "" {
		return p.errorf("query without SQL")
	}
	r.SQL = sql
	r.resultStart = p.i
	if sep {
		r.resultStart = p.i - 1
		r.HasResult = true
		r.Expected = p.block()
	}
	r.resultEnd = p.i
	p.add(r)
	return nil
}

func parseSortMode(s string) (SortMode, bool) {
	for m, n := range sortModeNames {
		if n == s {
			return m, true
		}
	}
	return NoSort, false
}

// sql reads SQL lines up to a blank line, "----" or the end; it reports whether it stopped
// at "----" (which it consumes).
func (p *parser) sql() (string, bool) {
	var sql []string
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if strings.TrimSpace(line) == "" {
			break
		}
		p.i++
		if strings.TrimSpace(line) == "----" {
			return strings.Join(sql, "\n"), true
		}
		sql = append(sql, line)
	}
	return strings.Join(sql, "\n"), false
}

// block reads result lines up to a blank line or the end.
func (p *parser) block() []string {
	var out []string
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) != "" {
		out = append(out, p.lines[p.i])
		p.i++
	}
	return out
}

func (p *parser) add(r *Record) {
	r.Conditions, p.conds = p.conds, nil
	if p.skip {
		return
	}
	p.f.Records = append(p.f.Records, r)
}
