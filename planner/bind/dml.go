package bind

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Writes: INSERT, DELETE and UPDATE bind to plan.Insert, plan.Delete and plan.Update over
// the latest version of the target table. DELETE and UPDATE find their rows through the
// hidden column catalog.RowAddrColumn of the target's scan.

// IsWrite reports whether stmt is a write statement that BindWrite binds (CREATE TABLE
// included).
func IsWrite(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.Insert, *ast.Delete, *ast.Update, *ast.CreateTable, *ast.CreateIndex, *ast.DropIndex, *ast.AlterIndex:
		return true
	}
	return false
}

// BindWrite binds a write statement (IsWrite), with prepared-statement parameters as
// BindParams does: values nil infers the parameter types and returns a plan that still
// holds placeholders; otherwise the values are bound. The plan's root is a plan.Insert,
// plan.Delete, plan.Update or plan.CreateTable whose source is not optimized yet.
func BindWrite(ctx context.Context, cat catalog.Catalog, stmt ast.Statement, values []scalar.Scalar) (plan.Node, []arrow.DataType, error) {
	return bindWithParams(ctx, cat, stmt, values, (*binder).bindWrite)
}

func (b *binder) bindWrite(stmt ast.Statement) (plan.Node, error) {
	b.rowCols = b.rowCols.or(mentionedRowColumns(stmt))
	switch s := stmt.(type) {
	case *ast.Insert:
		return b.bindInsert(s)
	case *ast.Delete:
		return b.bindDelete(s)
	case *ast.Update:
		return b.bindUpdate(s)
	case *ast.CreateTable:
		return b.bindCreateTable(s)
	case *ast.CreateIndex, *ast.DropIndex, *ast.AlterIndex:
		return b.bindIndexDDL(s)
	}
	pos := stmt.Position()
	return nil, dberr.NotSupported(statementKind(stmt)).At(pos.Line, pos.Column)
}

// writeTarget loads the latest version of the table a write changes and checks that the
// catalog can do the write (can reports the capability the statement kind needs).
func (b *binder) writeTarget(parts []string, pos ast.Pos, kind string, can func(catalog.Catalog) bool) (plan.WriteTarget, error) {
	name, err := tableName(parts)
	if err != nil {
		return plan.WriteTarget{}, errAt(err, pos)
	}
	t, err := b.loadTable(name, catalog.VersionRef{})
	if err != nil {
		return plan.WriteTarget{}, errAt(err, pos)
	}
	if !can(b.cat) {
		return plan.WriteTarget{}, dberr.NotSupported(kind+": the catalog is read-only").At(pos.Line, pos.Column)
	}
	return plan.WriteTarget{Catalog: b.cat, Table: t}, nil
}

// checkTargetRef refuses what a DELETE or UPDATE target cannot be: a past version, or a
// table whose real column hides the row address column.
func checkTargetRef(ref *ast.TableRef, kind string, sc *arrow.Schema) error {
	if ref.At != nil {
		return dberr.New(dberr.InvalidInput, "%s: cannot write to a past version of a table (AT on the target)", kind).At(ref.At.Pos.Line, ref.At.Pos.Column)
	}
	for _, f := range sc.Fields() {
		if strings.EqualFold(f.Name, catalog.RowAddrColumn) {
			return dberr.NotSupported(kind+" on a table with a column named "+catalog.RowAddrColumn).At(ref.Pos.Line, ref.Pos.Column)
		}
	}
	return nil
}

// rowAddrExpr binds the target's hidden row address column in scope sc.
func (b *binder) rowAddrExpr(sc *scope, input *plan.Node, kind string) (plan.Expr, error) {
	eb := &exprBinder{b: b, scope: sc, clause: kind, input: input}
	e, err := eb.bind(&ast.ColumnRef{Parts: []string{catalog.RowAddrColumn}})
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "%s: the table's row addresses", kind)
	}
	return e, nil
}

// bindTargetScan binds a DELETE or UPDATE target (latest version, with its row addresses)
// and its WHERE clause.
func (b *binder) bindTargetScan(ref *ast.TableRef, where ast.Expr, kind string, can func(catalog.Catalog) bool) (plan.WriteTarget, plan.Node, *scope, error) {
	if ref.At != nil {
		return plan.WriteTarget{}, nil, nil, checkTargetRef(ref, kind, arrow.NewSchema(nil, nil))
	}
	target, err := b.writeTarget(ref.Name, ref.Pos, kind, can)
	if err != nil {
		return plan.WriteTarget{}, nil, nil, err
	}
	if err := checkTargetRef(ref, kind, target.Table.Schema()); err != nil {
		return plan.WriteTarget{}, nil, nil, err
	}
	rel := ref.Alias
	if rel == "" {
		rel = target.Table.Name()
	}
	// The target's own scan reads the snapshot the commit is checked against, with its row
	// addresses, whatever the session's default versions say.
	saved := b.rowCols
	b.rowCols.addr = true
	scan, sc := b.baseTableScan(target.Table, rel)
	b.rowCols = saved
	var node plan.Node = scan
	if node, err = b.bindWhere(node, sc, where); err != nil {
		return plan.WriteTarget{}, nil, nil, err
	}
	return target, node, sc, nil
}
