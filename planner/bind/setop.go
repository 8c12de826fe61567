package bind

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// cteEnv is one WITH clause's definitions, chained to the enclosing ones.
type cteEnv struct {
	defs   []*cteDef
	parent *cteEnv
}

// cteDef is one CTE. It is inlined: every reference binds its query again.
type cteDef struct {
	cte ast.CTE
	env *cteEnv // the CTEs visible inside its query (the earlier ones)
	// recursive: the CTE belongs to WITH RECURSIVE (recursive.go).
	recursive bool
	// working, inside the recursive part of a recursive CTE, is the working table its
	// self-references read; used records that one did.
	working *plan.WorkingTable
	used    bool
}

// bindWith binds WITH ... query. Each CTE sees the ones before it.
func (b *binder) bindWith(w *ast.With) (plan.Node, error) {
	env := &cteEnv{parent: b.ctes}
	for _, c := range w.CTEs {
		for _, d := range env.defs {
			if d.cte.Name == c.Name {
				return nil, dberr.New(dberr.Parser, "Duplicate CTE name %q", c.Name).At(c.Pos.Line, c.Pos.Column)
			}
		}
		visible := &cteEnv{defs: append([]*cteDef{}, env.defs...), parent: b.ctes}
		env.defs = append(env.defs, &cteDef{cte: c, env: visible, recursive: w.Recursive})
	}
	inner := *b
	inner.ctes = env
	return inner.bindStatement(w.Query)
}

// bindCTERef binds a reference to a CTE in FROM.
func (b *binder) bindCTERef(d *cteDef, ref *ast.TableRef) (plan.Node, *scope, error) {
	if d.working != nil || d.recursive {
		return b.bindRecursiveRef(d, ref)
	}
	child := b.child()
	child.ctes = d.env
	n, err := child.bindStatement(d.cte.Query)
	if err != nil {
		return nil, nil, err
	}
	alias := ref.Alias
	if alias == "" {
		alias = d.cte.Name
	}
	return derived(n, alias, d.cte.Columns, ref.Pos)
}

var setOpKinds = map[string]plan.SetOpKind{"UNION": plan.Union, "INTERSECT": plan.Intersect, "EXCEPT": plan.Except}

// bindSetOp binds both sides, casts them to common column types and names the result after
// the left side. ORDER BY and LIMIT bind over the result as SELECT * FROM (setop) would.
func (b *binder) bindSetOp(s *ast.SetOp) (plan.Node, error) {
	if s.OrderBy != nil || s.Limit != nil || s.Offset != nil {
		inner := *s
		inner.OrderBy, inner.Limit, inner.Offset = nil, nil, nil
		wrapped := &ast.Select{Pos: s.Pos, Items: []ast.SelectItem{{Pos: s.Pos, Star: true}},
			From: &ast.SubqueryRef{Pos: s.Pos, Query: &inner}, OrderBy: s.OrderBy, Limit: s.Limit, Offset: s.Offset}
		return b.nested().bindSelect(wrapped) // flatten.go
	}
	left, err := b.nested().bindStatement(s.Left)
	if err != nil {
		return nil, err
	}
	right, err := b.nested().bindStatement(s.Right)
	if err != nil {
		return nil, err
	}
	if s.ByName {
		left, right = alignByName(left, right) // setop_byname.go
	}
	ln, rn := left.Schema().NumFields(), right.Schema().NumFields()
	if ln != rn {
		return nil, dberr.New(dberr.Binder, "Set operations can only apply to expressions with the same number of result columns").At(s.Pos.Line, s.Pos.Column)
	}
	types := make([]arrow.DataType, ln)
	for i := range types {
		t, err := setOpType(left.Schema().Field(i).Type, right.Schema().Field(i).Type)
		if err != nil {
			return nil, errAt(err, s.Pos)
		}
		types[i] = t
	}
	names := make([]string, ln)
	for i, f := range left.Schema().Fields() {
		names[i] = f.Name
	}
	if left, err = castColumns(left, types, names); err != nil {
		return nil, err
	}
	if right, err = castColumns(right, types, names); err != nil {
		return nil, err
	}
	return plan.NewSetOp(left, right, setOpKinds[s.Op], s.All), nil
}

// setOpType is the type two set-operation columns meet at: their CommonType, or VARCHAR
// when one side is a string (DuckDB: SELECT 1 UNION SELECT 'x' is VARCHAR).
func setOpType(a, b arrow.DataType) (arrow.DataType, error) {
	if a.ID() == arrow.NULL && b.ID() == arrow.NULL {
		return arrow.PrimitiveTypes.Int32, nil
	}
	if t, ok := functions.CommonType(a, b); ok {
		return t, nil
	}
	if functions.IsString(a) || functions.IsString(b) {
		return arrow.BinaryTypes.String, nil
	}
	return nil, dberr.New(dberr.Binder, "Cannot combine types %s and %s in a set operation", a, b)
}

// castColumns projects n to the given types and names, or returns n when it has them.
func castColumns(n plan.Node, types []arrow.DataType, names []string) (plan.Node, error) {
	same := true
	exprs := columnRefs(n.Schema(), len(types))
	for i, t := range types {
		f := n.Schema().Field(i)
		if arrow.TypeEqual(f.Type, t) && f.Name == names[i] {
			continue
		}
		same = false
		if arrow.TypeEqual(f.Type, t) {
			continue
		}
		c, err := functions.Cast(exprs[i], t)
		if err != nil {
			return nil, err
		}
		exprs[i] = c
	}
	if same {
		return n, nil
	}
	if p, ok := n.(*plan.Project); ok {
		// Cast inside the projection: a NULL literal becomes a typed NULL.
		inner := make([]plan.Expr, len(types))
		for i, e := range p.Exprs {
			c, err := functions.Cast(e, types[i])
			if err != nil {
				return nil, err
			}
			inner[i] = c
		}
		return plan.NewProject(p.Input, inner, names), nil
	}
	return plan.NewProject(n, exprs, names), nil
}

// bindValues binds a VALUES list: every row has constant expressions, each column is cast
// to the common type of its rows, and columns are named prefix0, prefix1, ...
func (b *binder) bindValues(v *ast.Values, prefix string) (plan.Node, error) {
	eb := &exprBinder{b: b, scope: &scope{noColumns: true}, clause: "VALUES list"}
	rows := make([][]plan.Expr, len(v.Rows))
	ncols := len(v.Rows[0])
	types := make([]arrow.DataType, ncols)
	for r, row := range v.Rows {
		rows[r] = make([]plan.Expr, ncols)
		for c, x := range row {
			e, err := eb.bind(x)
			if err != nil {
				return nil, err
			}
			rows[r][c] = e
			if types[c] == nil {
				types[c] = e.Type()
			} else if types[c], err = setOpType(types[c], e.Type()); err != nil {
				return nil, errAt(err, x.Position())
			}
		}
	}
	fields := make([]arrow.Field, ncols)
	for c := range fields {
		if types[c].ID() == arrow.NULL {
			types[c] = arrow.PrimitiveTypes.Int32
		}
		fields[c] = arrow.Field{Name: prefix + strconv.Itoa(c), Type: types[c]}
		for r := range rows {
			e, err := functions.Cast(rows[r][c], types[c])
			if err != nil {
				return nil, errAt(err, v.Rows[r][c].Position())
			}
			rows[r][c] = e
			fields[c].Nullable = fields[c].Nullable || e.Nullable()
		}
	}
	return plan.NewValues(arrow.NewSchema(fields, nil), rows), nil
}
