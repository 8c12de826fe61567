// Package ast holds the untyped syntax tree the parser produces from SQL text. Nothing in
// it knows about the catalog or types: names are plain strings and literals keep their
// source text. The binder (planner/bind) turns it into a typed logical plan.
package ast

// Pos is a 1-based line and column in the SQL text.
type Pos struct {
	Line, Column int
}

// Statement is one parsed SQL statement.
type Statement interface {
	stmt()
	// Position is where the statement starts.
	Position() Pos
}

// Select is a SELECT query.
type Select struct {
	Pos      Pos
	Distinct bool
	// DistinctOn holds the expressions of DISTINCT ON (...): one row per distinct value,
	// the first in ORDER BY order. Distinct is false when it is set.
	DistinctOn []Expr
	Items      []SelectItem
	From       FromItem // nil when the query has no FROM clause
	Where      Expr
	GroupBy    []Expr
	Having     Expr
	Windows    []NamedWindow // WINDOW clause
	Qualify    Expr
	OrderBy    []OrderItem
	// UntypedNulls is set by the binder on the branches of a grouping-set union: NULL
	// output columns keep type NULL so that the union gives them the other branches' type.
	UntypedNulls bool
	Limit        Expr // nil means no LIMIT
	Offset       Expr // nil means no OFFSET
}

// Explain is EXPLAIN <statement>.
type Explain struct {
	Pos     Pos
	Query   Statement
	Analyze bool
}

func (*Select) stmt()  {}
func (*Explain) stmt() {}

// Position implements Statement.
func (s *Select) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Explain) Position() Pos { return s.Pos }

// SelectItem is one entry of the select list: an expression with an optional alias, or a
// star (optionally qualified: t.*).
type SelectItem struct {
	Pos       Pos
	Expr      Expr   // nil for a star
	Alias     string // "" when absent
	Star      bool
	StarTable string       // qualifier of t.*; "" for a bare *
	Exclude   []string     // * EXCLUDE (a, b)
	Replace   []SelectItem // * REPLACE (expr AS a, ...): Expr and Alias set
}

// TableRef is a base table in FROM with an optional alias and time-travel clause.
type TableRef struct {
	Pos   Pos
	Name  []string // possibly qualified name parts, e.g. ["db", "t"]
	Alias string
	At    *AtClause
}

// AtUnit says what an AT clause selects by.
type AtUnit int

// The AT clause units.
const (
	AtVersion   AtUnit = iota // VERSION => n | 'tag'
	AtTimestamp               // TIMESTAMP => ts
)

// String renders the unit as SQL writes it: VERSION or TIMESTAMP.
func (u AtUnit) String() string {
	if u == AtTimestamp {
		return "TIMESTAMP"
	}
	return "VERSION"
}

// AtClause is a time-travel clause: AT (VERSION => expr) and its aliases.
type AtClause struct {
	Pos  Pos
	Unit AtUnit
	Expr Expr
}

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Pos        Pos
	Expr       Expr
	Desc       bool
	NullsFirst *bool // nil means the default (DuckDB: NULLS LAST)
}
