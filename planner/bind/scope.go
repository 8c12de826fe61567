package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// scope is the set of columns an expression can name: the one table in FROM.
// A scope with a nil schema (the AT clause) has no columns.
type scope struct {
	schema *arrow.Schema
	table  string
	alias  string
}

// qualifierMatches reports whether q names this scope's table (its alias when it has one).
func (s *scope) qualifierMatches(q string) bool {
	if s.alias != "" {
		return strings.EqualFold(q, s.alias)
	}
	return strings.EqualFold(q, s.table)
}

// resolve finds the column ref names: exact match first, then case-insensitive.
func (s *scope) resolve(ref *ast.ColumnRef, clause string) (*plan.ColumnRef, error) {
	name := ref.Parts[len(ref.Parts)-1]
	if s.schema == nil {
		return nil, dberr.New(dberr.Binder, "%s cannot contain column names", clause)
	}
	if len(ref.Parts) > 1 && !s.qualifierMatches(ref.Parts[len(ref.Parts)-2]) {
		return nil, dberr.New(dberr.Binder, "Referenced table %q not found!", ref.Parts[len(ref.Parts)-2])
	}
	idx := s.lookup(name)
	switch {
	case idx == -2:
		return nil, dberr.New(dberr.Binder, "Ambiguous reference to column name %q", name)
	case idx < 0:
		return nil, dberr.New(dberr.Binder, "Referenced column %q not found in FROM clause!", name)
	}
	f := s.schema.Field(idx)
	return &plan.ColumnRef{Index: idx, Name: f.Name, DataType: f.Type, Null: f.Nullable}, nil
}

// lookup returns the field index of name, -1 when absent and -2 when ambiguous.
func (s *scope) lookup(name string) int {
	exact, folded, nfolded := -1, -1, 0
	for i, f := range s.schema.Fields() {
		if f.Name == name {
			if exact >= 0 {
				return -2
			}
			exact = i
		}
		if strings.EqualFold(f.Name, name) {
			folded = i
			nfolded++
		}
	}
	switch {
	case exact >= 0:
		return exact
	case nfolded > 1:
		return -2
	}
	return folded
}
