package substrait

import (
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// scalarSubqueries collects the uncorrelated scalar subqueries of one filter condition or
// projection, planned the way the binder plans them: each becomes a one-row aggregate
// (single_value, which errors on more than one row) cross joined onto the relation's input,
// and the subquery expression a reference to that joined column.
type scalarSubqueries struct {
	width int         // index the next subquery's column gets: input width + subqueries so far
	nodes []plan.Node // the one-row aggregates, in join order
}

// subquery converts a Subquery expression. Only uncorrelated scalar subqueries in a filter
// condition or a projection are supported (correlated ones fail on their outer reference).
func (c *consumer) subquery(s *pb.Expression_Subquery, path string) (plan.Expr, error) {
	sc := s.GetScalar()
	if sc == nil {
		return nil, dberr.NotSupported("Substrait IN, EXISTS and comparison subqueries (at " + path + ")")
	}
	if c.subq == nil {
		return nil, dberr.NotSupported("Substrait scalar subqueries outside filter conditions and projections (at " + path + ")")
	}
	outer := c.subq
	c.subq = nil // the subquery's own relations collect their own subqueries
	n, err := c.rel(sc.GetInput(), path+".scalar")
	c.subq = outer
	if err != nil {
		return nil, err
	}
	if n.Schema().NumFields() != 1 {
		return nil, invalid(path, "scalar subquery returns %d columns, want 1", n.Schema().NumFields())
	}
	f := n.Schema().Field(0)
	val := &plan.ColumnRef{Index: 0, Name: f.Name, DataType: f.Type, Null: f.Nullable}
	agg := plan.NewAggregate(n, nil, nil, []plan.AggCall{{
		Func: "single_value", Args: []plan.Expr{val}, DataType: f.Type, Null: true, Name: f.Name,
	}})
	ref := &plan.ColumnRef{Index: outer.width, Name: f.Name, DataType: f.Type, Null: true}
	outer.width++
	outer.nodes = append(outer.nodes, agg)
	return ref, nil
}

// withSubqueries runs convert (which converts a relation's expressions over in) collecting
// scalar subqueries, and returns in with the subqueries' rows cross joined onto it: the
// converted expressions refer to that input. The caller drops the extra columns.
func (c *consumer) withSubqueries(in plan.Node, convert func() error) (plan.Node, error) {
	outer := c.subq
	sq := &scalarSubqueries{width: in.Schema().NumFields()}
	c.subq = sq
	err := convert()
	c.subq = outer
	if err != nil {
		return nil, err
	}
	for _, n := range sq.nodes {
		in = plan.NewJoin(in, n, plan.CrossJoin, nil, nil, nil)
	}
	return in, nil
}

// firstColumns projects the first n columns of in (nothing when it has exactly n).
func firstColumns(in plan.Node, n int) plan.Node {
	fields := in.Schema().Fields()
	if len(fields) == n {
		return in
	}
	exprs := make([]plan.Expr, n)
	names := make([]string, n)
	for i, f := range fields[:n] {
		exprs[i] = &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		names[i] = f.Name
	}
	return plan.NewProject(in, exprs, names)
}
