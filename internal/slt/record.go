package slt

import "fmt"

// Kind says what a record does.
type Kind int

// Record kinds.
const (
	// Statement runs SQL and checks only success or failure.
	Statement Kind = iota
	// Query runs SQL and checks its result.
	Query
)

// SortMode says how a query's rows are ordered before they are compared.
type SortMode int

// Sort modes, named as in the file.
const (
	// NoSort compares rows in the order the engine returned them.
	NoSort SortMode = iota
	// RowSort sorts the rendered rows.
	RowSort
	// ValueSort sorts all rendered values, one per line, ignoring row boundaries.
	ValueSort
)

var sortModeNames = map[SortMode]string{NoSort: "nosort", RowSort: "rowsort", ValueSort: "valuesort"}

// String renders m as it appears in a file.
func (m SortMode) String() string { return sortModeNames[m] }

// Condition restricts a record to some runs: skipif or onlyif a tag.
type Condition struct {
	Skip bool   // true for skipif, false for onlyif
	Tag  string // an engine name, or "config <name>"
}

// Record is one statement or query of a file.
type Record struct {
	Kind Kind
	// Line is the 1-based line of the record's first line (its statement/query line).
	Line int
	// SQL is the statement text, lines joined by "\n".
	SQL string
	// Conditions are the skipif/onlyif lines just before the record.
	Conditions []Condition
	// ExpectError is set for "statement error"; ErrorPattern is the regular expression the
	// error message must match ("" matches any error).
	ExpectError  bool
	ErrorPattern string
	// Types is a query's column type string, one letter per column.
	Types string
	// Sort is a query's sort mode.
	Sort SortMode
	// Label names a query's result; queries with the same label must agree.
	Label string
	// Expected holds a query's expected lines (rows, or values for valuesort).
	Expected []string
	// HasResult says whether the query has a "----" block.
	HasResult bool

	// Source positions (0-based line indices) used by Rewrite: the header line, and the
	// half-open range of lines the result block occupies (the "----" line and the
	// expected lines; empty when the record has no block).
	headerIdx, resultStart, resultEnd int
}

// Pos renders the record's position as file:line.
func (r *Record) Pos(file string) string { return fmt.Sprintf("%s:%d", file, r.Line) }

// File is a parsed test file.
type File struct {
	// Name is the name the file is reported under (usually its path relative to the
	// corpus root, with forward slashes).
	Name string
	// Requires lists the features named by require lines, with the index of the first
	// record they apply to.
	Requires []Require
	// Records are the statements and queries, in order. Records after halt are dropped,
	// records inside "mode skip" are dropped.
	Records []*Record
	// lines is the file's text, for Rewrite.
	lines []string
}

// Require is a "require <feature>" line: the records from Before on need the feature.
type Require struct {
	Feature string
	Before  int
}
