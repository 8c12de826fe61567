package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/flightdpb"
	"github.com/flightd/flightd/planner/plan"
)

// pinOf reads the LanceRead enhancement from the ReadRel or its NamedTable.
func pinOf(r *pb.ReadRel, path string) (*flightdpb.LanceRead, error) {
	pin := &flightdpb.LanceRead{}
	for _, ext := range []*extpb.AdvancedExtension{r.GetAdvancedExtension(), r.GetNamedTable().GetAdvancedExtension()} {
		enh := ext.GetEnhancement()
		if enh == nil {
			continue
		}
		if !enh.MessageIs(pin) {
			return nil, dberr.NotSupported(fmt.Sprintf("Substrait enhancement %s (at %s)", enh.GetTypeUrl(), path))
		}
		if err := enh.UnmarshalTo(pin); err != nil {
			return nil, invalid(path, "bad LanceRead enhancement: %v", err)
		}
	}
	return pin, nil
}

func (c *consumer) read(r *pb.ReadRel, path string) (plan.Node, error) {
	if vt := r.GetVirtualTable(); vt != nil {
		return c.virtualTable(r, vt, path)
	}
	nt := r.GetNamedTable()
	if nt == nil {
		return nil, dberr.NotSupported(fmt.Sprintf("Substrait reads other than named tables (at %s)", path))
	}
	if len(nt.GetNames()) == 0 {
		return nil, invalid(path, "named table without a name")
	}
	pin, err := pinOf(r, path)
	if err != nil {
		return nil, err
	}
	name := nt.GetNames()[len(nt.GetNames())-1]
	at := catalog.VersionRef{Version: pin.GetVersion()}
	t, err := c.cat.LoadTable(c.ctx, name, at)
	if err != nil {
		return nil, catalog.LoadError(name, at, err)
	}
	rowID, rowAddr, base, err := checkBaseSchema(r.GetBaseSchema(), t, path)
	if err != nil {
		return nil, err
	}
	cols, err := maskColumns(r.GetProjection(), base, path)
	if err != nil {
		return nil, err
	}
	var filter plan.Expr
	if r.GetFilter() != nil {
		if filter, err = c.predicate(r.GetFilter(), base, path+".filter"); err != nil {
			return nil, err
		}
	}
	n := readScan(t, cols, filter, rowID, rowAddr)
	if n.scan.Limit = -1; pin.Limit != nil {
		n.scan.Limit = pin.GetLimit()
	}
	if pin.GetIndex() != nil {
		if n.scan.Index, err = indexFilterOf(pin.GetIndex(), len(t.Schema().Fields()), path+".lance_read.index"); err != nil {
			return nil, err
		}
	}
	return emit(n.node, r.GetCommon(), path)
}

// checkBaseSchema verifies that the plan's base schema names the table's columns, maybe
// followed by hidden row columns (read_rows.go), and returns those and the base schema.
func checkBaseSchema(base *pb.NamedStruct, t catalog.Table, path string) (rowID, rowAddr bool, _ *arrow.Schema, _ error) {
	if base == nil {
		return false, false, t.Schema(), nil
	}
	rowID, rowAddr, s, ok := baseRowColumns(base.GetNames(), t)
	if !ok {
		want, _ := namedStruct(t.Schema())
		return false, false, nil, invalid(path, "base schema %v does not match table %s version %d %v", base.GetNames(), t.Name(), t.Version(), want.GetNames())
	}
	return rowID, rowAddr, s, nil
}

// maskColumns returns the columns a projection mask selects (all when there is none).
func maskColumns(mask *pb.Expression_MaskExpression, s *arrow.Schema, path string) ([]int, error) {
	n := len(s.Fields())
	if mask == nil || mask.GetSelect() == nil {
		cols := make([]int, n)
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	items := mask.GetSelect().GetStructItems()
	cols := make([]int, len(items))
	for i, it := range items {
		if it.GetField() < 0 || int(it.GetField()) >= n {
			return nil, invalid(path, "projection selects field %d of %d", it.GetField(), n)
		}
		if it.GetChild() != nil {
			return nil, dberr.NotSupported("nested projection masks (at " + path + ")")
		}
		cols[i] = int(it.GetField())
	}
	return cols, nil
}

type scanNode struct {
	scan *plan.Scan
	node plan.Node
}

func (c *consumer) aggregate(a *pb.AggregateRel, path string) (plan.Node, error) {
	in, err := c.rel(a.GetInput(), path)
	if err != nil {
		return nil, err
	}
	groups, err := c.groupings(a, in.Schema(), path)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(groups))
	for i := range names {
		names[i] = fmt.Sprintf("group%d", i)
	}
	aggs := make([]plan.AggCall, len(a.GetMeasures()))
	for i, m := range a.GetMeasures() {
		if aggs[i], err = c.measure(m, in.Schema(), fmt.Sprintf("%s.measures[%d]", path, i)); err != nil {
			return nil, err
		}
	}
	if len(groups) == 0 && len(aggs) == 0 {
		return nil, invalid(path, "aggregate with neither groupings nor measures")
	}
	return emit(plan.NewAggregate(in, groups, names, aggs), a.GetCommon(), path)
}

// groupings returns the grouping keys of the single grouping set (new style: grouping
// expressions referenced by index; old style: expressions inside the grouping).
func (c *consumer) groupings(a *pb.AggregateRel, in *arrow.Schema, path string) ([]plan.Expr, error) {
	gs := a.GetGroupings()
	if len(gs) > 1 {
		return nil, dberr.NotSupported("grouping sets (at " + path + ")")
	}
	shared := make([]plan.Expr, len(a.GetGroupingExpressions()))
	for i, x := range a.GetGroupingExpressions() {
		e, err := c.expr(x, in, fmt.Sprintf("%s.grouping_expressions[%d]", path, i))
		if err != nil {
			return nil, err
		}
		shared[i] = e
	}
	if len(gs) == 0 {
		return nil, nil
	}
	if len(shared) == 0 {
		return c.oldStyleGrouping(gs[0], in, path)
	}
	// New style. Producers (DataFusion) also fill the deprecated per-grouping expressions
	// with the same keys for older consumers: they are ignored here.
	var out []plan.Expr
	for _, ref := range gs[0].GetExpressionReferences() {
		if int(ref) >= len(shared) {
			return nil, invalid(path, "grouping refers to expression %d of %d", ref, len(shared))
		}
		out = append(out, shared[ref])
	}
	return out, nil
}

// oldStyleGrouping returns the keys of a grouping that holds its expressions itself (plans
// from producers that predate the plan-level grouping expressions).
func (c *consumer) oldStyleGrouping(g *pb.AggregateRel_Grouping, in *arrow.Schema, path string) ([]plan.Expr, error) {
	var out []plan.Expr
	for i, x := range g.GetGroupingExpressions() { //nolint:staticcheck // deprecated, still read
		e, err := c.expr(x, in, fmt.Sprintf("%s.groupings[0][%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
