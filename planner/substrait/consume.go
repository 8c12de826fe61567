package substrait

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Unmarshal parses a serialized Substrait plan and consumes it.
func Unmarshal(ctx context.Context, cat catalog.Catalog, b []byte) (plan.Node, error) {
	var p pb.Plan
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan")
	}
	return Consume(ctx, cat, &p)
}

// Consume rebuilds the logical plan of a Substrait plan with one root relation. Each named
// table is loaded at the version its LanceRead enhancement pins (the latest when there is
// none). Function calls are rebuilt through planner/functions, so their types follow the
// binder's rules. Plans whose extensions are declared only by URI (older producers) are
// resolved by function name. DataFusion's plans are accepted: its grouping keys in both the
// plan-level and the deprecated per-grouping form, LIKE with a NULL escape argument, and
// uncorrelated scalar subqueries in filter conditions and projections (planned like the
// binder's: a single_value aggregate cross joined onto the input). Correlated, IN and
// EXISTS subqueries are not supported yet.
//
// A malformed plan is a dberr.InvalidInput error naming the path of the offending node
// ("root/fetch/sort/read"); a valid but unsupported one is dberr.NotImplemented.
func Consume(ctx context.Context, cat catalog.Catalog, p *pb.Plan) (plan.Node, error) {
	c := &consumer{ctx: ctx, cat: cat, funcs: map[uint32]string{}}
	if err := c.declare(p); err != nil {
		return nil, err
	}
	rels := p.GetRelations()
	if len(rels) != 1 {
		return nil, invalid("plan", "want exactly one relation, got %d", len(rels))
	}
	if root := rels[0].GetRoot(); root != nil {
		n, err := c.rel(root.GetInput(), "root")
		if err != nil {
			return nil, err
		}
		return rename(n, root.GetNames()), nil
	}
	if r := rels[0].GetRel(); r != nil {
		return c.rel(r, "rel")
	}
	return nil, invalid("plan", "relation has neither a root nor a rel")
}

// consumer holds the state of consuming one plan.
type consumer struct {
	ctx   context.Context
	cat   catalog.Catalog
	funcs map[uint32]string // function anchor → function name (signature stripped)
	subq  *scalarSubqueries // the scalar subqueries of the expressions being converted, if allowed
	// working maps the recursive CTEs being read to their working tables' schemas
	// (recursive.go).
	working map[int64]*arrow.Schema
}

func invalid(path, format string, args ...any) error {
	return dberr.New(dberr.InvalidInput, "invalid Substrait plan at %s: %s", path, fmt.Sprintf(format, args...))
}

// declare records the function declarations.
func (c *consumer) declare(p *pb.Plan) error {
	urns := map[uint32]string{}
	for _, u := range p.GetExtensionUrns() {
		urns[u.GetExtensionUrnAnchor()] = u.GetUrn()
	}
	for i, ext := range p.GetExtensions() {
		f := ext.GetExtensionFunction()
		if f == nil {
			continue
		}
		name, _, _ := strings.Cut(f.GetName(), ":")
		if name == "" {
			return invalid(fmt.Sprintf("extensions[%d]", i), "function declaration without a name")
		}
		if urn, ok := urns[f.GetExtensionUrnReference()]; ok && !standardURNs[urn] {
			name = urn + ":" + name // unknown extension: keep it distinct from ours
		}
		c.funcs[f.GetFunctionAnchor()] = name
	}
	return nil
}

func (c *consumer) rel(r *pb.Rel, path string) (plan.Node, error) {
	switch k := r.GetRelType().(type) {
	case *pb.Rel_Read:
		return c.read(k.Read, path+"/read")
	case *pb.Rel_Filter:
		return c.filter(k.Filter, path+"/filter")
	case *pb.Rel_Project:
		if isWindowProject(k.Project) {
			return c.windowProject(k.Project, path+"/project")
		}
		return c.project(k.Project, path+"/project")
	case *pb.Rel_Aggregate:
		return c.aggregate(k.Aggregate, path+"/aggregate")
	case *pb.Rel_Sort:
		return c.sort(k.Sort, path+"/sort")
	case *pb.Rel_Fetch:
		return c.fetch(k.Fetch, path+"/fetch")
	case *pb.Rel_Join:
		return c.join(k.Join, path+"/join")
	case *pb.Rel_Cross:
		return c.cross(k.Cross, path+"/cross")
	case *pb.Rel_Set:
		return c.set(k.Set, path+"/set")
	case *pb.Rel_ExtensionMulti:
		return c.extensionMulti(k.ExtensionMulti, path+"/extension_multi")
	case *pb.Rel_ExtensionLeaf:
		return c.extensionLeaf(k.ExtensionLeaf, path+"/extension_leaf")
	case *pb.Rel_ExtensionSingle:
		return c.extensionSingle(k.ExtensionSingle, path+"/extension_single") // table_func.go
	case nil:
		return nil, invalid(path, "missing relation")
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", r.GetRelType()), "*substraitpb.Rel_")
	return nil, dberr.NotSupported(fmt.Sprintf("Substrait %s relation (at %s)", name, path))
}

// emit applies a RelCommon's emit (output mapping) and output names to n.
func emit(n plan.Node, common *pb.RelCommon, path string) (plan.Node, error) {
	mapping := common.GetEmit().GetOutputMapping()
	if common.GetEmit() != nil {
		fields := n.Schema().Fields()
		exprs := make([]plan.Expr, len(mapping))
		names := make([]string, len(mapping))
		for i, m := range mapping {
			if m < 0 || int(m) >= len(fields) {
				return nil, invalid(path, "emit refers to field %d of %d", m, len(fields))
			}
			f := fields[m]
			exprs[i] = &plan.ColumnRef{Index: int(m), Name: f.Name, DataType: f.Type, Null: f.Nullable}
			names[i] = f.Name
		}
		n = plan.NewProject(n, exprs, names)
	}
	return rename(n, common.GetHint().GetOutputNames()), nil
}

// rename gives n's top-level outputs the given names (depth-first, as in RelRoot). Names
// that do not fit the schema are ignored. Projects and aggregates are renamed in place of
// a copy; other nodes get a renaming projection.
func rename(n plan.Node, dfs []string) plan.Node {
	fields := n.Schema().Fields()
	if len(dfs) == 0 || len(dfs) != len(dfsNames(fields)) {
		return n
	}
	names := make([]string, len(fields))
	same := true
	for i, k := 0, 0; i < len(fields); i++ {
		names[i] = dfs[k]
		same = same && names[i] == fields[i].Name
		k += 1 + len(nestedNames(fields[i].Type))
	}
	if same {
		return n
	}
	switch n := n.(type) {
	case *plan.Project:
		return plan.NewProject(n.Input, n.Exprs, names)
	case *plan.Window:
		if w, ok := renameWindow(n, names); ok {
			return w
		}
	case *plan.Aggregate:
		aggs := append([]plan.AggCall(nil), n.Aggs...)
		for i := range aggs {
			aggs[i].Name = names[len(n.GroupBy)+i]
		}
		return plan.NewAggregate(n.Input, n.GroupBy, names[:len(n.GroupBy)], aggs)
	}
	exprs := make([]plan.Expr, len(fields))
	for i, f := range fields {
		exprs[i] = &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
	}
	return plan.NewProject(n, exprs, names)
}

func (c *consumer) filter(f *pb.FilterRel, path string) (plan.Node, error) {
	in, err := c.rel(f.GetInput(), path)
	if err != nil {
		return nil, err
	}
	width := in.Schema().NumFields()
	var cond plan.Expr
	joined, err := c.withSubqueries(in, func() (err error) {
		cond, err = c.predicate(f.GetCondition(), in.Schema(), path+".condition")
		return err
	})
	if err != nil {
		return nil, err
	}
	return emit(firstColumns(&plan.Filter{Input: joined, Cond: cond}, width), f.GetCommon(), path)
}

// predicate converts a boolean condition.
func (c *consumer) predicate(e *pb.Expression, in *arrow.Schema, path string) (plan.Expr, error) {
	cond, err := c.expr(e, in, path)
	if err != nil {
		return nil, err
	}
	if cond.Type().ID() != arrow.BOOL {
		return nil, invalid(path, "condition has type %s, want boolean", cond.Type())
	}
	return cond, nil
}

func (c *consumer) project(p *pb.ProjectRel, path string) (plan.Node, error) {
	in, err := c.rel(p.GetInput(), path)
	if err != nil {
		return nil, err
	}
	fields := in.Schema().Fields()
	exprs := make([]plan.Expr, 0, len(fields)+len(p.GetExpressions()))
	names := make([]string, 0, cap(exprs))
	for i, f := range fields {
		exprs = append(exprs, &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable})
		names = append(names, f.Name)
	}
	joined, err := c.withSubqueries(in, func() error {
		for i, x := range p.GetExpressions() {
			e, err := c.expr(x, in.Schema(), fmt.Sprintf("%s.expressions[%d]", path, i))
			if err != nil {
				return err
			}
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("expr%d", i))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c.selectOutputs(joined, exprs, names, p.GetCommon(), path)
}

// selectOutputs builds a projection of exprs, applying the emit mapping directly so that a
// ProjectRel becomes one Project node.
func (c *consumer) selectOutputs(in plan.Node, exprs []plan.Expr, names []string, common *pb.RelCommon, path string) (plan.Node, error) {
	if e := common.GetEmit(); e != nil {
		var sel []plan.Expr
		var selNames []string
		for _, m := range e.GetOutputMapping() {
			if m < 0 || int(m) >= len(exprs) {
				return nil, invalid(path, "emit refers to field %d of %d", m, len(exprs))
			}
			sel = append(sel, exprs[m])
			selNames = append(selNames, names[m])
		}
		exprs, names = sel, selNames
	}
	return rename(plan.NewProject(in, exprs, names), common.GetHint().GetOutputNames()), nil
}

func (c *consumer) sort(s *pb.SortRel, path string) (plan.Node, error) {
	in, err := c.rel(s.GetInput(), path)
	if err != nil {
		return nil, err
	}
	keys, err := c.sortKeys(s.GetSorts(), in.Schema(), path)
	if err != nil {
		return nil, err
	}
	return emit(&plan.Sort{Input: in, Keys: keys}, s.GetCommon(), path)
}

func (c *consumer) fetch(f *pb.FetchRel, path string) (plan.Node, error) {
	in, err := c.rel(f.GetInput(), path)
	if err != nil {
		return nil, err
	}
	offset, count := int64(0), int64(-1)
	switch m := f.GetOffsetMode().(type) {
	case *pb.FetchRel_Offset:
		offset = m.Offset
	case *pb.FetchRel_OffsetExpr:
		if offset, err = c.constInt(m.OffsetExpr, path+".offset"); err != nil {
			return nil, err
		}
	}
	switch m := f.GetCountMode().(type) {
	case *pb.FetchRel_Count:
		count = m.Count
	case *pb.FetchRel_CountExpr:
		if count, err = c.constInt(m.CountExpr, path+".count"); err != nil {
			return nil, err
		}
	}
	if offset < 0 || count < -1 {
		return nil, invalid(path, "offset %d and count %d out of range", offset, count)
	}
	return emit(&plan.Limit{Input: in, Offset: offset, Count: count}, f.GetCommon(), path)
}

func (c *consumer) constInt(e *pb.Expression, path string) (int64, error) {
	x, err := c.expr(e, arrow.NewSchema(nil, nil), path)
	if err != nil {
		return 0, err
	}
	lit, ok := x.(*plan.Literal)
	if !ok {
		return 0, dberr.NotSupported("non-constant fetch offset or count (at " + path + ")")
	}
	if !lit.Value.IsValid() {
		return -1, nil
	}
	n, ok := intOf(lit)
	if !ok {
		return 0, invalid(path, "want an integer, got %s", lit.Type())
	}
	return n, nil
}

// sortKeys converts sort fields over the input schema in.
func (c *consumer) sortKeys(sorts []*pb.SortField, in *arrow.Schema, path string) ([]plan.SortKey, error) {
	keys := make([]plan.SortKey, len(sorts))
	for i, f := range sorts {
		kp := fmt.Sprintf("%s.sorts[%d]", path, i)
		e, err := c.expr(f.GetExpr(), in, kp)
		if err != nil {
			return nil, err
		}
		k := plan.SortKey{Expr: e}
		switch f.GetDirection() {
		case pb.SortField_SORT_DIRECTION_ASC_NULLS_LAST:
		case pb.SortField_SORT_DIRECTION_ASC_NULLS_FIRST:
			k.NullsFirst = true
		case pb.SortField_SORT_DIRECTION_DESC_NULLS_LAST:
			k.Descending = true
		case pb.SortField_SORT_DIRECTION_DESC_NULLS_FIRST:
			k.Descending, k.NullsFirst = true, true
		default:
			return nil, dberr.NotSupported(fmt.Sprintf("sort direction %s (at %s)", f.GetDirection(), kp))
		}
		keys[i] = k
	}
	return keys, nil
}

// int64Literal is a BIGINT constant.
func int64Literal(n int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(n)} }

// renameWindow names a Window's function outputs; ok is false when the names would also
// rename its input columns.
func renameWindow(w *plan.Window, names []string) (plan.Node, bool) {
	nin := w.Input.Schema().NumFields()
	for i, f := range w.Input.Schema().Fields() {
		if names[i] != f.Name {
			return nil, false
		}
	}
	funcs := append([]plan.WindowFunc(nil), w.Funcs...)
	for i := range funcs {
		funcs[i].Name = names[nin+i]
	}
	return plan.NewWindow(w.Input, funcs), true
}
