// Package bind turns a parsed statement (planner/ast) into a typed logical plan
// (planner/plan): it resolves the table and its version through catalog.Catalog, resolves
// column names (exact match first, then case-insensitive, as DuckDB does), types every
// expression with DuckDB's implicit casts (planner/functions), and plans aggregates,
// HAVING, ORDER BY (by alias, ordinal or expression, with hidden sort columns), DISTINCT
// and LIMIT/OFFSET.
//
// The plan it returns reads all columns of the table; pruning is the optimizer's job.
package bind

import (
	"context"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Bind binds one query statement. EXPLAIN is the caller's business: pass its Query.
func Bind(ctx context.Context, cat catalog.Catalog, stmt ast.Statement) (plan.Node, error) {
	switch s := stmt.(type) {
	case *ast.Select:
		b := &binder{ctx: ctx, cat: cat}
		return b.bindSelect(s)
	case *ast.Explain:
		return nil, dberr.NotSupported("nested EXPLAIN")
	}
	return nil, dberr.NotSupported("this statement")
}

// binder holds the state of binding one statement.
type binder struct {
	ctx context.Context
	cat catalog.Catalog
}

// errAt attaches a source position to a classified error that has none.
func errAt(err error, pos ast.Pos) error {
	if e, ok := err.(*dberr.Error); ok && e.Line == 0 && pos.Line > 0 {
		return e.At(pos.Line, pos.Column)
	}
	return err
}
