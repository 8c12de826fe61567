package bind

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindTableFunc binds a table function in FROM that reads no column of the items to its
// left: range, generate_series and unnest.
func (b *binder) bindTableFunc(tf *ast.TableFunc) (plan.Node, *scope, error) {
	var n plan.Node
	var err error
	switch tf.Name {
	case "range", "generate_series":
		n, err = b.bindRange(tf)
	case "unnest":
		one := plan.NewValues(arrow.NewSchema(nil, nil), [][]plan.Expr{{}})
		n, err = b.bindFromUnnest(one, &scope{noColumns: true}, tf)
	default:
		err = dberr.NotSupported("table function " + tf.Name)
	}
	if err != nil && strings.Contains(err.Error(), "cannot contain column names") {
		err = dberr.NotSupported(tf.Name + " reading columns of other tables, except unnest on the right of a CROSS JOIN or comma join")
	}
	if err != nil {
		return nil, nil, errAt(err, tf.Pos)
	}
	alias := tf.Alias
	if alias == "" {
		alias = tf.Name
	}
	cols := tf.Columns
	if nf := n.Schema().NumFields(); len(cols) > nf {
		cols = cols[:nf] // DuckDB ignores a table function's extra column aliases
	}
	if tf.Alias != "" && len(cols) == 0 && n.Schema().NumFields() == 1 {
		n, sc := aliasedColumn(n, tf.Alias)
		return n, sc, nil
	}
	return derived(n, alias, cols, tf.Pos)
}

// aliasedColumn names the single column of a table function with an alias but no column
// list after the alias, as DuckDB does (SELECT * FROM range(2) r has a column r): the
// column's own name (range, unnest) still reaches it, r.range included, but * shows r.
func aliasedColumn(n plan.Node, alias string) (plan.Node, *scope) {
	f := n.Schema().Field(0)
	n = plan.NewProject(n, columnRefs(n.Schema(), 1), []string{alias})
	renamed := f
	renamed.Name = alias
	return n, &scope{cols: []scopeCol{
		{rel: alias, index: 0, field: renamed},
		{rel: alias, index: 0, field: f, system: true},
	}}
}

// bindRange binds range([start,] stop [, step]) and generate_series (stop included) over
// integer constants; a NULL argument gives no rows.
func (b *binder) bindRange(tf *ast.TableFunc) (plan.Node, error) {
	if len(tf.Args) < 1 || len(tf.Args) > 3 {
		return nil, dberr.New(dberr.Binder, "table function %s takes 1 to 3 arguments, not %d", tf.Name, len(tf.Args))
	}
	eb := &exprBinder{b: b, scope: &scope{noColumns: true}, clause: "FROM clause"}
	vals := make([]int64, len(tf.Args))
	empty := false
	for i, a := range tf.Args {
		e, err := eb.bind(a)
		if err != nil {
			return nil, err
		}
		lit, ok := foldInteger(e).(*plan.Literal)
		if !ok {
			return nil, dberr.NotSupported(fmt.Sprintf("%s with a non-constant argument", tf.Name))
		}
		if !lit.Value.IsValid() {
			empty = true
			continue
		}
		v, ok := functions.IntValue(lit.Value)
		if !ok {
			return nil, dberr.NotSupported(fmt.Sprintf("%s over %s", tf.Name, lit.Value.DataType()))
		}
		vals[i] = v
	}
	start, stop, step := int64(0), vals[0], int64(1)
	if len(vals) > 1 {
		start, stop = vals[0], vals[1]
	}
	if len(vals) > 2 {
		step = vals[2]
	}
	if step == 0 && !empty {
		return nil, dberr.New(dberr.InvalidInput, "interval cannot be 0!")
	}
	return plan.NewRange(tf.Name, start, stop, step, tf.Name == "generate_series", empty), nil
}

// bindFromUnnest binds unnest(list) in FROM over input (whose columns sc names): the
// output is input's columns then the elements, in a column called unnest.
func (b *binder) bindFromUnnest(input plan.Node, sc *scope, tf *ast.TableFunc) (plan.Node, error) {
	if len(tf.Args) != 1 {
		return nil, dberr.New(dberr.Binder, "unnest takes one argument, not %d", len(tf.Args))
	}
	eb := &exprBinder{b: b, scope: sc, clause: "FROM clause"}
	e, err := eb.bind(tf.Args[0])
	if err != nil {
		return nil, err
	}
	if err := checkUnnestType(e.Type()); err != nil {
		return nil, err
	}
	return plan.NewUnnest(input, []plan.Expr{e}, []string{"unnest"}), nil
}

// checkUnnestType accepts lists and NULL.
func checkUnnestType(t arrow.DataType) error {
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.NULL:
		return nil
	case arrow.STRUCT:
		return dberr.NotSupported("UNNEST of a struct")
	}
	return dberr.New(dberr.Binder, "UNNEST() can only be applied to lists, structs and NULL")
}

// lateralUnnest binds "left, unnest(expr)" (or CROSS JOIN unnest(expr)) where expr reads
// columns of left: every left row joined with the elements of its list, as DuckDB's
// implicit LATERAL. ok is false when the right side is not such an unnest; other join
// types over such an unnest are not supported yet.
func (b *binder) lateralUnnest(j *ast.Join, left plan.Node, ls *scope) (plan.Node, *scope, bool, error) {
	tf, isTF := j.Right.(*ast.TableFunc)
	if !isTF || tf.Name != "unnest" || len(tf.Args) != 1 {
		return nil, nil, false, nil
	}
	empty := &exprBinder{b: b, scope: &scope{noColumns: true}, clause: "FROM clause"}
	if _, err := empty.bind(tf.Args[0]); err == nil {
		return nil, nil, false, nil // no outer reference: a plain join
	}
	if j.Kind != ast.JoinCross || j.Natural || len(j.Using) > 0 || j.On != nil {
		return nil, nil, true, dberr.NotSupported("LATERAL unnest with a join other than CROSS JOIN or a comma").At(tf.Pos.Line, tf.Pos.Column)
	}
	name := "unnest"
	switch {
	case len(tf.Columns) > 0:
		name = tf.Columns[0] // DuckDB ignores extra column aliases
	case tf.Alias != "":
		name = tf.Alias
	}
	n, err := b.bindFromUnnest(left, ls, &ast.TableFunc{Pos: tf.Pos, Name: tf.Name, Args: tf.Args})
	if err != nil {
		return nil, nil, true, errAt(err, tf.Pos)
	}
	u := n.(*plan.Unnest)
	u = plan.NewUnnest(u.Input, u.Lists, []string{name})
	alias := tf.Alias
	if alias == "" {
		alias = "unnest"
	}
	nleft := left.Schema().NumFields()
	sc := &scope{cols: append([]scopeCol{}, ls.cols...)}
	sc.cols = append(sc.cols, scopeCol{rel: alias, index: nleft, field: u.Schema().Field(nleft)})
	if name != "unnest" && len(tf.Columns) == 0 {
		f := u.Schema().Field(nleft)
		f.Name = "unnest" // u.unnest still names the column of unnest(l) u
		sc.cols = append(sc.cols, scopeCol{rel: alias, index: nleft, field: f, system: true})
	}
	return u, sc, true, nil
}
