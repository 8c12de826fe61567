package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Index DDL: CREATE INDEX, DROP INDEX and ALTER INDEX ... OPTIMIZE bind to plan.IndexDDL
// over the catalog's catalog.Indexer. Lance index names belong to a table and flightd has one
// schema, so DROP INDEX and ALTER INDEX without ON look the name up in every table: one match
// is the table, none is "no such index" (a no-op with IF EXISTS), several are an error asking
// for ON.

// indexTypes are the index types CREATE INDEX accepts, keyed without underscores.
var indexTypes = map[string]string{"BTREE": "BTREE", "BITMAP": "BITMAP", "LABELLIST": "LABEL_LIST",
	"ZONEMAP": "ZONEMAP", "BLOOMFILTER": "BLOOMFILTER"}

// emptySource is the source of an index statement: no rows, no columns.
func emptySource() plan.Node { return plan.NewValues(arrow.NewSchema(nil, nil), nil) }

// indexer returns the catalog's Indexer, or a "not supported" error at pos.
func (b *binder) indexer(kind string, pos ast.Pos) (catalog.Indexer, error) {
	ix, ok := b.cat.(catalog.Indexer)
	if !ok {
		return nil, dberr.NotSupported(kind+": the catalog cannot build indexes").At(pos.Line, pos.Column)
	}
	return ix, nil
}

// bindCreateIndex binds CREATE INDEX [IF NOT EXISTS] name ON t (col) [USING type].
func (b *binder) bindCreateIndex(s *ast.CreateIndex) (plan.Node, error) {
	at := func(err *dberr.Error) error { return err.At(s.Pos.Line, s.Pos.Column) }
	if _, err := b.indexer("CREATE INDEX", s.Pos); err != nil {
		return nil, err
	}
	switch {
	case s.Unique:
		return nil, at(dberr.NotSupported("UNIQUE indexes"))
	case len(s.Columns) != 1:
		return nil, at(dberr.NotSupported("indexes over several columns"))
	}
	typ, ok := indexTypes[strings.ReplaceAll(strings.ToUpper(s.Using), "_", "")]
	if s.Using == "" {
		typ, ok = "BTREE", true
	}
	if !ok {
		return nil, at(dberr.NotSupported("index type " + s.Using + " (supported: BTREE, BITMAP, LABEL_LIST, ZONEMAP, BLOOMFILTER)"))
	}
	t, err := b.indexTable(s.Table, s.Pos)
	if err != nil {
		return nil, err
	}
	col := ""
	for _, f := range t.Schema().Fields() {
		if strings.EqualFold(f.Name, s.Columns[0]) {
			col = f.Name
			break
		}
	}
	if col == "" {
		return nil, at(dberr.New(dberr.Binder, "Table %q does not have a column named %q", t.Name(), s.Columns[0]))
	}
	return &plan.IndexDDL{Kind: plan.CreateIndex, Catalog: b.cat, Table: t.Name(), Name: s.Name, Column: col,
		Type: typ, IfNotExists: s.IfNotExists, Source: emptySource()}, nil
}

// indexTable loads the latest version of the table an index statement names.
func (b *binder) indexTable(parts []string, pos ast.Pos) (catalog.Table, error) {
	name, err := tableName(parts)
	if err != nil {
		return nil, errAt(err, pos)
	}
	t, err := b.loadTable(name, catalog.VersionRef{})
	if err != nil {
		return nil, errAt(err, pos)
	}
	return t, nil
}

// bindDropIndex binds DROP INDEX [IF EXISTS] name [ON t].
func (b *binder) bindDropIndex(s *ast.DropIndex) (plan.Node, error) {
	tbl, err := b.indexOwner("DROP INDEX", s.Name, s.Table, s.IfExists, s.Pos)
	if err != nil {
		return nil, err
	}
	return &plan.IndexDDL{Kind: plan.DropIndex, Catalog: b.cat, Table: tbl, Name: s.Name, IfExists: s.IfExists,
		Source: emptySource()}, nil
}

// bindAlterIndex binds ALTER INDEX name [ON t] OPTIMIZE.
func (b *binder) bindAlterIndex(s *ast.AlterIndex) (plan.Node, error) {
	if s.Action != "OPTIMIZE" {
		return nil, dberr.NotSupported("ALTER INDEX "+s.Action).At(s.Pos.Line, s.Pos.Column)
	}
	tbl, err := b.indexOwner("ALTER INDEX", s.Name, s.Table, false, s.Pos)
	if err != nil {
		return nil, err
	}
	return &plan.IndexDDL{Kind: plan.OptimizeIndex, Catalog: b.cat, Table: tbl, Name: s.Name, Source: emptySource()}, nil
}

// indexOwner finds the table of index name: the ON table, else the one table that has an
// index of that name ("" when none has and ifExists is set).
func (b *binder) indexOwner(kind, name string, on []string, ifExists bool, pos ast.Pos) (string, error) {
	ix, err := b.indexer(kind, pos)
	if err != nil {
		return "", err
	}
	if on != nil {
		t, err := b.indexTable(on, pos)
		if err != nil {
			return "", err
		}
		return t.Name(), nil
	}
	tables, err := ix.TablesWithIndex(b.ctx, name)
	if err != nil {
		return "", dberr.Wrap(dberr.IO, err, "%s %s: find the index's table", kind, name).At(pos.Line, pos.Column)
	}
	switch {
	case len(tables) == 1:
		return tables[0], nil
	case len(tables) == 0 && ifExists:
		return "", nil
	case len(tables) == 0:
		return "", dberr.Wrap(dberr.Catalog, catalog.ErrNoSuchIndex, "Index with name %q does not exist!", name).At(pos.Line, pos.Column)
	}
	return "", dberr.New(dberr.Binder, "index name %q is ambiguous: tables %s have an index of that name (add ON <table>)",
		name, strings.Join(tables, ", ")).At(pos.Line, pos.Column)
}

// bindIndexDDL binds an index statement (IsWrite's CREATE INDEX, DROP INDEX, ALTER INDEX).
func (b *binder) bindIndexDDL(stmt ast.Statement) (plan.Node, error) {
	switch s := stmt.(type) {
	case *ast.CreateIndex:
		return b.bindCreateIndex(s)
	case *ast.DropIndex:
		return b.bindDropIndex(s)
	case *ast.AlterIndex:
		return b.bindAlterIndex(s)
	}
	pos := stmt.Position()
	return nil, dberr.NotSupported(statementKind(stmt)).At(pos.Line, pos.Column)
}
