// Package bind turns a parsed statement (planner/ast) into a typed logical plan
// (planner/plan): it resolves tables and their versions through catalog.Catalog, CTEs,
// derived tables and joins into one scope of columns, resolves column names (exact match
// first, then case-insensitive, as DuckDB does; ambiguity is an error), types every
// expression with DuckDB's implicit casts (planner/functions), decorrelates subqueries into
// semi, anti, mark, left and cross joins (correlations with any comparison, aggregates
// over a domain of outer values, x op ANY/ALL, LATERAL: domain.go, quantified.go,
// lateral.go; any other correlated shape is flattened over the domain: flatten.go), and
// plans aggregates, HAVING, ORDER BY (by alias, ordinal or expression, with hidden sort
// columns), DISTINCT, set operations, VALUES and LIMIT/OFFSET. BindParams also infers and binds prepared-statement parameters.
//
// The plan it returns reads all columns of every table; pruning is the optimizer's job.
package bind

import (
	"context"
	"errors"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Bind binds one query statement. EXPLAIN is the caller's business: pass its Query.
func Bind(ctx context.Context, cat catalog.Catalog, stmt ast.Statement) (plan.Node, error) {
	b := &binder{ctx: ctx, cat: cat}
	return b.bindStatement(stmt)
}

// binder holds the state of binding one query block. Subqueries get a child binder.
type binder struct {
	ctx   context.Context
	cat   catalog.Catalog
	ctes  *cteEnv      // common table expressions in scope
	outer *scope       // the enclosing query's scope, for correlated subqueries
	corr  *correlation // where a correlated subquery collects its correlations
	// params holds the statement's parameters; nil when parameters are not allowed
	// (Bind without values).
	params *params
	// rowCols are the hidden row columns the statement's table scans carry (rowcols.go).
	rowCols rowColumns
}

// child returns a binder for a nested query block: same catalog and CTEs, no outer scope.
func (b *binder) child() *binder {
	return &binder{ctx: b.ctx, cat: b.cat, ctes: b.ctes, params: b.params, rowCols: b.rowCols}
}

func (b *binder) bindStatement(stmt ast.Statement) (plan.Node, error) {
	b.rowCols = b.rowCols.or(mentionedRowColumns(stmt))
	switch s := stmt.(type) {
	case *ast.Select:
		return b.bindSelect(s)
	case *ast.SetOp:
		return b.bindSetOp(s)
	case *ast.With:
		return b.bindWith(s)
	case *ast.Values:
		return b.bindValues(s, "col")
	case *ast.Explain:
		return nil, dberr.NotSupported("nested EXPLAIN").At(s.Pos.Line, s.Pos.Column)
	}
	pos := stmt.Position()
	return nil, dberr.NotSupported(statementKind(stmt)).At(pos.Line, pos.Column)
}

// statementKind names a statement flightd parses but does not plan.
func statementKind(stmt ast.Statement) string {
	switch s := stmt.(type) {
	case *ast.CreateTable:
		return "CREATE TABLE"
	case *ast.Insert:
		return "INSERT"
	case *ast.Update:
		return "UPDATE"
	case *ast.Delete:
		return "DELETE"
	case *ast.Drop:
		return "DROP " + s.Kind
	case *ast.AlterTable:
		return "ALTER TABLE"
	case *ast.CreateIndex:
		return "CREATE INDEX"
	case *ast.Merge:
		return "MERGE"
	}
	return "this statement"
}

// errAt attaches a source position to a classified error that has none.
func errAt(err error, pos ast.Pos) error {
	var e *dberr.Error
	if errors.As(err, &e) && e.Line == 0 && pos.Line > 0 {
		return e.At(pos.Line, pos.Column)
	}
	return err
}
