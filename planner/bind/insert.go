package bind

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindInsert binds INSERT INTO t [(cols)] VALUES ... | query. The source yields every column
// of t in order: the statement's values cast to the column types (DuckDB's casts), NULL for
// columns the statement does not name (an error for a non-nullable column).
func (b *binder) bindInsert(s *ast.Insert) (plan.Node, error) {
	can := func(c catalog.Catalog) bool { _, ok := c.(catalog.Writer); return ok }
	target, err := b.writeTarget(s.Table, s.Pos, "INSERT", can)
	if err != nil {
		return nil, err
	}
	fields := target.Table.Schema().Fields()
	cols, err := insertColumns(s, target.Table.Name(), fields)
	if err != nil {
		return nil, err
	}
	var src plan.Node
	if v, ok := s.Query.(*ast.Values); ok {
		src, err = b.bindInsertValues(v, cols, fields)
	} else {
		src, err = b.bindInsertQuery(s.Query, cols, fields)
	}
	if err != nil {
		return nil, err
	}
	return &plan.Insert{Target: target, Source: src}, nil
}

// insertColumns maps each column the statement names (all, in order, when it names none)
// to its index in the table. Columns left out must be nullable.
func insertColumns(s *ast.Insert, table string, fields []arrow.Field) ([]int, error) {
	if len(s.Columns) == 0 {
		cols := make([]int, len(fields))
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	cols := make([]int, len(s.Columns))
	named := make(map[int]bool, len(s.Columns))
	for j, name := range s.Columns {
		i := fieldIndex(fields, name)
		if i < 0 {
			return nil, dberr.New(dberr.Binder, "Table %q does not have a column with name %q", table, name).At(s.Pos.Line, s.Pos.Column)
		}
		if named[i] {
			return nil, dberr.New(dberr.Binder, "Duplicate column name %q in INSERT", name).At(s.Pos.Line, s.Pos.Column)
		}
		named[i] = true
		cols[j] = i
	}
	for i, f := range fields {
		if !named[i] && !f.Nullable {
			return nil, dberr.New(dberr.Constraint, "NOT NULL constraint failed: %s.%s", table, f.Name).At(s.Pos.Line, s.Pos.Column)
		}
	}
	return cols, nil
}

// fieldIndex finds a column by name, exactly first and then case-insensitively; -1 when
// absent or ambiguous.
func fieldIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	found := -1
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// bindInsertValues binds a VALUES list straight into the table's column types, so that a
// placeholder takes the type of its column.
func (b *binder) bindInsertValues(v *ast.Values, cols []int, fields []arrow.Field) (plan.Node, error) {
	eb := &exprBinder{b: b, scope: &scope{noColumns: true}, clause: "VALUES list"}
	rows := make([][]plan.Expr, len(v.Rows))
	for r, row := range v.Rows {
		if len(row) != len(cols) {
			return nil, dberr.New(dberr.Binder, "table has %d columns but %d values were supplied", len(cols), len(row)).At(v.Pos.Line, v.Pos.Column)
		}
		rows[r] = nullRow(fields)
		for j, x := range row {
			e, err := eb.bind(x)
			if err != nil {
				return nil, err
			}
			i := cols[j]
			if rows[r][i], err = functions.Cast(e, fields[i].Type); err != nil {
				return nil, errAt(err, x.Position())
			}
		}
	}
	return plan.NewValues(sourceSchema(fields), rows), nil
}

// bindInsertQuery binds INSERT ... SELECT: a projection of the query's columns, cast, into
// the table's columns.
func (b *binder) bindInsertQuery(q ast.Statement, cols []int, fields []arrow.Field) (plan.Node, error) {
	src, err := b.bindStatement(q)
	if err != nil {
		return nil, err
	}
	in := src.Schema().Fields()
	if len(in) != len(cols) {
		pos := q.Position()
		return nil, dberr.New(dberr.Binder, "table has %d columns but the query produces %d", len(cols), len(in)).At(pos.Line, pos.Column)
	}
	exprs := nullRow(fields)
	for j, f := range in {
		i := cols[j]
		ref := &plan.ColumnRef{Index: j, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		if exprs[i], err = functions.Cast(ref, fields[i].Type); err != nil {
			return nil, fmt.Errorf("INSERT column %q: %w", fields[i].Name, err)
		}
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return plan.NewProject(src, exprs, names), nil
}

// nullRow is one NULL literal per column, of the column's type.
func nullRow(fields []arrow.Field) []plan.Expr {
	row := make([]plan.Expr, len(fields))
	for i, f := range fields {
		row[i] = &plan.Literal{Value: scalar.MakeNullScalar(f.Type)}
	}
	return row
}

// sourceSchema is the table's columns, all nullable: the executor checks non-nullable
// columns when it writes, with a clear error.
func sourceSchema(fields []arrow.Field) *arrow.Schema {
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		out[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true}
	}
	return arrow.NewSchema(out, nil)
}
