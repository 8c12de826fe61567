package bind

import (
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// bindCreateTable binds CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (columns) | AS query.
// Columns take DuckDB's type names and NOT NULL; PRIMARY KEY and DEFAULT are not supported.
// The new table's columns are nullable unless declared NOT NULL (AS query: all nullable).
func (b *binder) bindCreateTable(s *ast.CreateTable) (plan.Node, error) {
	name, err := tableName(s.Name)
	if err != nil {
		return nil, errAt(err, s.Pos)
	}
	if _, ok := b.cat.(catalog.Writer); !ok {
		return nil, dberr.NotSupported("CREATE TABLE: the catalog is read-only").At(s.Pos.Line, s.Pos.Column)
	}
	if s.OrReplace && s.IfNotExists {
		return nil, dberr.New(dberr.Parser, "OR REPLACE and IF NOT EXISTS cannot both be used").At(s.Pos.Line, s.Pos.Column)
	}
	if err := b.checkNewTable(name, s); err != nil {
		return nil, err
	}
	var src plan.Node
	if s.As != nil {
		if src, err = b.bindStatement(s.As); err != nil {
			return nil, err
		}
		if src, err = typedNullColumns(src); err != nil { // null_columns.go
			return nil, err
		}
	} else {
		sc, err := columnsSchema(s)
		if err != nil {
			return nil, err
		}
		src = plan.NewValues(sc, nil)
	}
	fields := src.Schema().Fields()
	out := make([]arrow.Field, len(fields))
	seen := map[string]bool{}
	for i, f := range fields {
		if seen[strings.ToLower(f.Name)] {
			return nil, dberr.New(dberr.Binder, "column %q is specified more than once", f.Name).At(s.Pos.Line, s.Pos.Column)
		}
		seen[strings.ToLower(f.Name)] = true
		out[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: s.As != nil || f.Nullable}
	}
	mode := catalog.CreateNew
	if s.OrReplace {
		mode = catalog.CreateOrReplace
	}
	return &plan.CreateTable{Catalog: b.cat, Name: name, Table: arrow.NewSchema(out, nil), Mode: mode,
		IfNotExists: s.IfNotExists, Source: src}, nil
}

// checkNewTable fails when table name exists and the statement neither replaces it nor
// tolerates it.
func (b *binder) checkNewTable(name string, s *ast.CreateTable) error {
	if s.OrReplace || s.IfNotExists {
		return nil
	}
	_, err := b.cat.LoadTable(b.ctx, name, catalog.VersionRef{})
	switch {
	case err == nil:
		return dberr.Wrap(dberr.Catalog, catalog.ErrTableExists, "Table with name %q already exists!", name).At(s.Pos.Line, s.Pos.Column)
	case errors.Is(err, catalog.ErrNoSuchTable):
		return nil
	default:
		return catalog.LoadError(name, catalog.VersionRef{}, err)
	}
}

// columnsSchema is the schema of CREATE TABLE's column list.
func columnsSchema(s *ast.CreateTable) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(s.Columns))
	for i, c := range s.Columns {
		switch {
		case c.PrimaryKey:
			return nil, dberr.NotSupported("PRIMARY KEY constraints").At(s.Pos.Line, s.Pos.Column)
		case c.Default != nil:
			pos := c.Default.Position()
			return nil, dberr.NotSupported("DEFAULT values").At(pos.Line, pos.Column)
		}
		t, err := typeFromName(c.Type)
		if err != nil {
			return nil, errAt(err, s.Pos)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: t, Nullable: !c.NotNull}
	}
	return arrow.NewSchema(fields, nil), nil
}
