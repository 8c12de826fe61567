package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindFromItem binds one FROM item into its plan and the scope of its columns.
func (b *binder) bindFromItem(item ast.FromItem) (plan.Node, *scope, error) {
	switch it := item.(type) {
	case *ast.TableRef:
		return b.bindTable(it)
	case *ast.SubqueryRef:
		n, err := b.nested().bindStatement(it.Query) // flatten.go
		if err != nil {
			return nil, nil, err
		}
		return derived(n, it.Alias, it.Columns, it.Pos)
	case *ast.Values:
		n, err := b.bindValues(it, "col")
		if err != nil {
			return nil, nil, err
		}
		return derived(n, it.Alias, it.Columns, it.Pos)
	case *ast.Join:
		return b.bindJoin(it)
	case *ast.TableFunc:
		return b.bindTableFunc(it) // table_func.go
	}
	return nil, nil, dberr.New(dberr.Internal, "unexpected FROM item %T", item)
}

// derived names the columns of a derived table (alias(c1, c2)) and returns its scope.
func derived(n plan.Node, alias string, cols []string, pos ast.Pos) (plan.Node, *scope, error) {
	fields := n.Schema().Fields()
	if len(cols) > len(fields) {
		return nil, nil, dberr.New(dberr.Binder, "table %q has %d columns available but %d columns specified", alias, len(fields), len(cols)).At(pos.Line, pos.Column)
	}
	if len(cols) > 0 {
		exprs := columnRefs(n.Schema(), len(fields))
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.Name
			if i < len(cols) {
				names[i] = cols[i]
			}
		}
		n = plan.NewProject(n, exprs, names)
	}
	return n, tableScope(n.Schema(), alias), nil
}

var joinTypes = map[ast.JoinKind]plan.JoinType{
	ast.JoinInner: plan.InnerJoin, ast.JoinLeft: plan.LeftJoin, ast.JoinRight: plan.RightJoin,
	ast.JoinFull: plan.FullJoin, ast.JoinCross: plan.CrossJoin, ast.JoinSemi: plan.SemiJoin,
	ast.JoinAnti: plan.AntiJoin,
}

// bindJoin binds both sides, checks that their table names differ, and plans the join
// condition: ON (split into equi keys and a residual), USING or NATURAL.
func (b *binder) bindJoin(j *ast.Join) (plan.Node, *scope, error) {
	left, ls, err := b.bindFromItem(j.Left)
	if err != nil {
		return nil, nil, err
	}
	if n, sc, ok, err := b.lateralUnnest(j, left, ls); ok || err != nil { // table_func.go
		return n, sc, err
	}
	right, rs, lat, err := b.bindJoinRight(j.Right, ls) // lateral.go
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rs.rels() {
		if ls.hasRel(r) {
			return nil, nil, dberr.New(dberr.Binder, "Duplicate alias %q in query!", r).At(j.Right.Position().Line, j.Right.Position().Column)
		}
	}
	if lat != nil {
		return b.lateralJoin(j, left, right, ls, rs, lat)
	}
	typ := joinTypes[j.Kind]
	nleft := left.Schema().NumFields()
	both := &scope{cols: append(append([]scopeCol{}, ls.cols...), shiftCols(rs.cols, nleft)...)}
	using := j.Using
	if j.Natural {
		using = commonNames(ls, rs)
		if len(using) == 0 && typ != plan.CrossJoin {
			typ = plan.CrossJoin
		}
	}
	switch {
	case len(using) > 0:
		return b.usingJoin(left, right, ls, rs, typ, using, j.Pos)
	case j.On != nil:
		both.outer, both.corr = b.outer, b.nestedCorr() // flatten.go
		eb := &exprBinder{b: b, scope: both, clause: "JOIN condition"}
		cond, err := eb.bind(j.On)
		if err != nil {
			return nil, nil, err
		}
		if cond, err = asPredicate(cond, "JOIN", j.On.Position()); err != nil {
			return nil, nil, err
		}
		lk, rk, rest := plan.SplitJoinCondition(cond, nleft)
		j := plan.NewJoin(left, right, typ, lk, rk, rest)
		return j, joinScope(j, ls, both), nil
	}
	jn := plan.NewJoin(left, right, typ, nil, nil, nil)
	return jn, joinScope(jn, ls, both), nil
}

// joinScope is the scope of a join's output: the left columns only for semi and anti
// joins, with the nullability the join gives each column.
func joinScope(j plan.Node, left, both *scope) *scope {
	if jn, ok := j.(*plan.Join); ok && (jn.Type == plan.SemiJoin || jn.Type == plan.AntiJoin) {
		return left
	}
	return refresh(both, j)
}

// refresh copies the nullability of n's output columns into the scope's columns.
func refresh(sc *scope, n plan.Node) *scope {
	out := &scope{cols: make([]scopeCol, len(sc.cols))}
	for i, c := range sc.cols {
		c.field.Nullable = n.Schema().Field(c.index).Nullable
		out.cols[i] = c
	}
	return out
}

func shiftCols(cols []scopeCol, delta int) []scopeCol {
	out := make([]scopeCol, len(cols))
	for i, c := range cols {
		c.index += delta
		out[i] = c
	}
	return out
}

// commonNames are the visible column names both sides have (NATURAL joins), in left order.
func commonNames(ls, rs *scope) []string {
	var out []string
	for _, c := range ls.cols {
		if !c.hidden && !c.system && rs.lookup(c.field.Name) >= 0 {
			out = append(out, c.field.Name)
		}
	}
	return out
}

// usingJoin joins on equality of the named columns. The merged column is visible once: the
// left one (the right one for RIGHT joins, coalesce(left, right) for FULL joins); the others
// stay reachable through their table names.
func (b *binder) usingJoin(left, right plan.Node, ls, rs *scope, typ plan.JoinType, using []string, pos ast.Pos) (plan.Node, *scope, error) {
	nleft := left.Schema().NumFields()
	lcols := append([]scopeCol{}, ls.cols...)
	rcols := shiftCols(rs.cols, nleft)
	var lk, rk []plan.Expr
	var merged [][2]int // positions in lcols and rcols
	for _, name := range using {
		li, ri := ls.lookup(name), rs.lookup(name)
		if li < 0 || ri < 0 {
			side := "left"
			if li >= 0 {
				side = "right"
			}
			return nil, nil, dberr.New(dberr.Binder, "Column %q does not exist on %s side of join!", name, side).At(pos.Line, pos.Column)
		}
		eq, err := functions.NewCall("equal", []plan.Expr{colRef(ls.cols[li]), colRef(rs.cols[ri])})
		if err != nil {
			return nil, nil, errAt(err, pos)
		}
		lk, rk = append(lk, eq.Args[0]), append(rk, eq.Args[1])
		merged = append(merged, [2]int{li, ri})
	}
	if typ == plan.CrossJoin {
		typ = plan.InnerJoin
	}
	j := plan.NewJoin(left, right, typ, lk, rk, nil)
	if typ == plan.SemiJoin || typ == plan.AntiJoin {
		return j, &scope{cols: lcols}, nil
	}
	for _, m := range merged {
		if typ == plan.RightJoin {
			lcols[m[0]].hidden = true
		} else {
			rcols[m[1]].hidden = true
		}
	}
	sc := refresh(&scope{cols: append(lcols, rcols...)}, j)
	if typ != plan.FullJoin {
		return j, sc, nil
	}
	return fullUsing(j, sc, merged, len(lcols))
}

// fullUsing adds coalesce(left, right) for each USING column of a FULL join, visible under
// the column's name in the left column's place.
func fullUsing(j *plan.Join, sc *scope, merged [][2]int, nl int) (plan.Node, *scope, error) {
	n := j.Schema().NumFields()
	exprs := columnRefs(j.Schema(), n)
	names := make([]string, n)
	for i, f := range j.Schema().Fields() {
		names[i] = f.Name
	}
	cols := append([]scopeCol{}, sc.cols...)
	for _, m := range merged {
		l, r := cols[m[0]], cols[nl+m[1]]
		co, err := functions.NewCall("coalesce", []plan.Expr{colRef(l), colRef(r)})
		if err != nil {
			return nil, nil, err
		}
		cols[m[0]] = scopeCol{index: len(exprs), field: arrow.Field{Name: l.field.Name, Type: co.Type(), Nullable: co.Nullable()}}
		l.hidden = true
		cols = append(cols, l)
		exprs = append(exprs, co)
		names = append(names, l.field.Name)
	}
	p := plan.NewProject(j, exprs, names)
	return p, refresh(&scope{cols: cols}, p), nil
}

// lookupCTE finds a CTE by name (case-insensitively), innermost first.
func (b *binder) lookupCTE(name string) (*cteDef, bool) {
	for e := b.ctes; e != nil; e = e.parent {
		for _, d := range e.defs {
			if strings.EqualFold(d.cte.Name, name) {
				return d, true
			}
		}
	}
	return nil, false
}
