package bind

import (
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// scopeCol is one column an expression can name.
type scopeCol struct {
	rel    string // the table's alias or name; "" for a column with no table
	index  int    // position in the input node's output
	field  arrow.Field
	hidden bool // merged away by USING/NATURAL: reachable only through its table name
	// system marks a hidden row column (_rowid, _rowaddr; rowcols.go): never part of *,
	// NATURAL or USING; an unqualified name reaches it only when no visible column has it.
	system bool
}

// scope is the set of columns an expression can name: the columns of the FROM clause, in
// star-expansion order. A scope with noColumns set (AT, LIMIT) rejects every column name.
// outer is the enclosing query's scope for correlated subqueries.
type scope struct {
	cols      []scopeCol
	noColumns bool
	outer     *scope
	corr      *correlation // collects outer references; nil when they are not allowed
}

// tableScope is the scope of one table or derived table whose columns are fields.
func tableScope(s *arrow.Schema, rel string) *scope {
	sc := &scope{}
	for i, f := range s.Fields() {
		sc.cols = append(sc.cols, scopeCol{rel: rel, index: i, field: f})
	}
	return sc
}

// hasRel reports whether q names a table of this scope.
func (s *scope) hasRel(q string) bool {
	for _, c := range s.cols {
		if c.rel != "" && strings.EqualFold(c.rel, q) {
			return true
		}
	}
	return false
}

// rels lists the distinct table names of the scope, in order.
func (s *scope) rels() []string {
	var out []string
	for _, c := range s.cols {
		if c.rel != "" && (len(out) == 0 || !strings.EqualFold(out[len(out)-1], c.rel)) {
			out = append(out, c.rel)
		}
	}
	return out
}

// resolve finds the column ref names: exact match first, then case-insensitive. A name
// not found here is looked up in the enclosing query (a correlated reference).
func (s *scope) resolve(ref *ast.ColumnRef, clause string) (plan.Expr, error) {
	if s.noColumns {
		return nil, dberr.New(dberr.Binder, "%s cannot contain column names", clause)
	}
	c, err := s.find(ref)
	if err == nil {
		return colRef(c), nil
	}
	if s.outer != nil && !isAmbiguous(err) {
		// The nearest enclosing query that has the column; a reference past the immediate
		// one marks the correlation deep (flatten.go).
		for o, depth := s.outer, 1; o != nil; o, depth = o.outer, depth+1 {
			oc, oerr := o.find(ref)
			if oerr != nil {
				if isAmbiguous(oerr) {
					return nil, oerr
				}
				continue
			}
			if s.corr == nil {
				return nil, dberr.NotSupported("correlated column references here")
			}
			if depth > 1 {
				s.corr.deep = true
			}
			return &outerRef{col: colRef(oc), sc: o}, nil
		}
	}
	return nil, err
}

func colRef(c scopeCol) *plan.ColumnRef {
	return &plan.ColumnRef{Index: c.index, Name: c.field.Name, DataType: c.field.Type, Null: c.field.Nullable}
}

func isAmbiguous(err error) bool {
	var e *dberr.Error
	return errors.As(err, &e) && strings.HasPrefix(e.Msg, "Ambiguous")
}

// find resolves ref in this scope only.
func (s *scope) find(ref *ast.ColumnRef) (scopeCol, error) {
	name := ref.Parts[len(ref.Parts)-1]
	var idx int
	if len(ref.Parts) > 1 {
		q := ref.Parts[len(ref.Parts)-2]
		if !s.hasRel(q) {
			return scopeCol{}, dberr.New(dberr.Binder, "Referenced table %q not found!", q)
		}
		idx = s.lookupIn(name, func(c scopeCol) bool { return strings.EqualFold(c.rel, q) })
	} else if idx = s.lookup(name); idx == -1 {
		idx = s.lookupIn(name, func(c scopeCol) bool { return c.system })
	}
	switch {
	case idx == -2:
		return scopeCol{}, dberr.New(dberr.Binder, "Ambiguous reference to column name %q", name)
	case idx < 0:
		return scopeCol{}, dberr.New(dberr.Binder, "Referenced column %q not found in FROM clause!", name)
	}
	return s.cols[idx], nil
}

// lookup returns the position in cols of the visible column name, -1 when absent and -2
// when ambiguous.
func (s *scope) lookup(name string) int {
	return s.lookupIn(name, func(c scopeCol) bool { return !c.hidden && !c.system })
}

func (s *scope) lookupIn(name string, ok func(scopeCol) bool) int {
	exact, folded, nexact, nfolded := -1, -1, 0, 0
	for i, c := range s.cols {
		if !ok(c) {
			continue
		}
		if c.field.Name == name {
			exact = i
			nexact++
		}
		if strings.EqualFold(c.field.Name, name) {
			folded = i
			nfolded++
		}
	}
	switch {
	case nexact > 1:
		return -2
	case exact >= 0:
		return exact
	case nfolded > 1:
		return -2
	}
	return folded
}

// outerRef is a reference to a column of the enclosing query inside a correlated
// subquery. It never reaches a finished plan: decorrelation replaces it.
type outerRef struct {
	col *plan.ColumnRef
	sc  *scope // the scope col belongs to
}

// Type implements plan.Expr.
func (o *outerRef) Type() arrow.DataType { return o.col.DataType }

// Nullable implements plan.Expr.
func (o *outerRef) Nullable() bool { return o.col.Null }

func (o *outerRef) String() string { return "outer." + o.col.String() }
