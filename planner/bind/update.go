package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindUpdate binds UPDATE t SET c = expr, ... [WHERE cond]: the source is, for each row of
// the latest version of t that satisfies cond, its row address followed by every column of
// t: the assigned expression cast to the column's type, or the old value.
func (b *binder) bindUpdate(s *ast.Update) (plan.Node, error) {
	if s.From != nil {
		pos := s.From.Position()
		return nil, dberr.NotSupported("UPDATE ... FROM").At(pos.Line, pos.Column)
	}
	can := func(c catalog.Catalog) bool { _, ok := c.(catalog.Updater); return ok }
	target, node, sc, err := b.bindTargetScan(s.Table, s.Where, "UPDATE", can)
	if err != nil {
		return nil, err
	}
	fields := target.Table.Schema().Fields()
	assigned, err := assignmentColumns(s, fields)
	if err != nil {
		return nil, err
	}
	addr, err := b.rowAddrExpr(sc, &node, "UPDATE")
	if err != nil {
		return nil, err
	}
	exprs := []plan.Expr{addr}
	names := []string{catalog.RowAddrColumn}
	eb := &exprBinder{b: b, scope: sc, clause: "SET clause", input: &node}
	for i, f := range fields {
		var e plan.Expr = &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		if a, ok := assigned[i]; ok {
			v, err := eb.bind(a.Value)
			if err != nil {
				return nil, err
			}
			if e, err = functions.Cast(v, f.Type); err != nil {
				return nil, errAt(err, a.Value.Position())
			}
		}
		exprs = append(exprs, e)
		names = append(names, f.Name)
	}
	return &plan.Update{Target: target, Source: plan.NewProject(node, exprs, names)}, nil
}

// assignmentColumns maps the columns UPDATE assigns (by index in the table) to their
// assignments; unknown and repeated columns are errors.
func assignmentColumns(s *ast.Update, fields []arrow.Field) (map[int]ast.Assignment, error) {
	out := make(map[int]ast.Assignment, len(s.Set))
	for _, a := range s.Set {
		i := fieldIndex(fields, a.Column)
		if i < 0 {
			return nil, dberr.New(dberr.Binder, "Referenced update column %s not found in table!", a.Column).At(s.Pos.Line, s.Pos.Column)
		}
		if _, dup := out[i]; dup {
			return nil, dberr.New(dberr.Binder, "Multiple assignments to same column %q", a.Column).At(s.Pos.Line, s.Pos.Column)
		}
		out[i] = a
	}
	return out, nil
}
