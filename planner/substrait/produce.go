package substrait

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/flightdpb"
	"github.com/flightd/flightd/planner/plan"
)

// Producer name and version written into every plan.
const producerName = "flightd"

// Produce turns a logical plan into a Substrait plan with one root. Every scan is pinned
// to its table's resolved version (a LanceRead enhancement on the ReadRel).
func Produce(n plan.Node) (*pb.Plan, error) {
	p := &producer{urns: map[string]uint32{}, funcs: map[string]uint32{}}
	rel, err := p.rel(n)
	if err != nil {
		return nil, err
	}
	names := dfsNames(n.Schema().Fields())
	p.out.Relations = []*pb.PlanRel{{RelType: &pb.PlanRel_Root{Root: &pb.RelRoot{Input: rel, Names: names}}}}
	p.out.Version = &pb.Version{MinorNumber: 85, Producer: producerName}
	return &p.out, nil
}

// Marshal produces n and serializes it.
func Marshal(n plan.Node) ([]byte, error) {
	pl, err := Produce(n)
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(pl)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "marshal substrait plan")
	}
	return b, nil
}

// producer accumulates the extension declarations of one plan.
type producer struct {
	out   pb.Plan
	urns  map[string]uint32 // URN → anchor
	funcs map[string]uint32 // URN + " " + signature → anchor
}

// function returns the anchor of a function declaration, declaring it on first use.
func (p *producer) function(urn, sig string) uint32 {
	key := urn + " " + sig
	if a, ok := p.funcs[key]; ok {
		return a
	}
	ua, ok := p.urns[urn]
	if !ok {
		ua = uint32(len(p.urns) + 1)
		p.urns[urn] = ua
		p.out.ExtensionUrns = append(p.out.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: ua, Urn: urn})
	}
	a := uint32(len(p.funcs) + 1)
	p.funcs[key] = a
	p.out.Extensions = append(p.out.Extensions, &extpb.SimpleExtensionDeclaration{
		MappingType: &extpb.SimpleExtensionDeclaration_ExtensionFunction_{ExtensionFunction: &extpb.SimpleExtensionDeclaration_ExtensionFunction{
			ExtensionUrnReference: ua, FunctionAnchor: a, Name: sig,
		}},
	})
	return a
}

func (p *producer) rel(n plan.Node) (*pb.Rel, error) {
	switch n := n.(type) {
	case *plan.Scan:
		return p.read(n)
	case *plan.Filter:
		return p.filter(n)
	case *plan.Project:
		return p.project(n)
	case *plan.Aggregate:
		return p.aggregate(n)
	case *plan.Sort:
		return p.sort(n)
	case *plan.Limit:
		return p.fetch(n)
	case *plan.Join:
		return p.join(n)
	case *plan.SetOp:
		return p.setOp(n)
	case *plan.Values:
		return p.values(n)
	case *plan.Window:
		return p.window(n)
	case *plan.RecursiveCTE:
		return p.recursiveCTE(n)
	case *plan.WorkingTable:
		return p.workingTable(n)
	case *plan.Range:
		return p.rangeRel(n) // table_func.go
	case *plan.Unnest:
		return p.unnestRel(n)
	}
	return nil, dberr.NotSupported(fmt.Sprintf("plan node %T in Substrait", n))
}

func (p *producer) read(s *plan.Scan) (*pb.Rel, error) {
	baseSchema, basePos := scanBase(s)
	base, err := namedStruct(baseSchema)
	if err != nil {
		return nil, err
	}
	items := make([]*pb.Expression_MaskExpression_StructItem, len(basePos))
	for i, c := range basePos {
		items[i] = &pb.Expression_MaskExpression_StructItem{Field: int32(c)}
	}
	pin := &flightdpb.LanceRead{Version: s.Table.Version()}
	if s.Limit >= 0 {
		pin.Limit = proto.Int64(s.Limit)
	}
	if s.Index != nil {
		if pin.Index, err = indexFilterProto(s.Index); err != nil {
			return nil, err
		}
	}
	enh, err := anypb.New(pin)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "pack table version")
	}
	read := &pb.ReadRel{
		Common:            common(nil, nil),
		BaseSchema:        base,
		Projection:        &pb.Expression_MaskExpression{Select: &pb.Expression_MaskExpression_StructSelect{StructItems: items}, MaintainSingularStruct: true},
		ReadType:          &pb.ReadRel_NamedTable_{NamedTable: &pb.ReadRel_NamedTable{Names: []string{s.Table.Name()}}},
		AdvancedExtension: &extpb.AdvancedExtension{Enhancement: enh},
	}
	if s.Filter != nil {
		// The ReadRel filter is over the base schema; ours is over the projected columns.
		f := plan.RewriteColumns(s.Filter, func(c *plan.ColumnRef) plan.Expr {
			out := *c
			out.Index = basePos[c.Index]
			return &out
		})
		if read.Filter, err = p.expr(f); err != nil {
			return nil, err
		}
	}
	return &pb.Rel{RelType: &pb.Rel_Read{Read: read}}, nil
}

func (p *producer) filter(f *plan.Filter) (*pb.Rel, error) {
	in, err := p.rel(f.Input)
	if err != nil {
		return nil, err
	}
	cond, err := p.expr(f.Cond)
	if err != nil {
		return nil, err
	}
	return &pb.Rel{RelType: &pb.Rel_Filter{Filter: &pb.FilterRel{Common: common(nil, nil), Input: in, Condition: cond}}}, nil
}

// common names the outputs of a relation and, when emit is set, selects them.
func common(names []string, emit []int32) *pb.RelCommon {
	c := &pb.RelCommon{}
	if names != nil {
		c.Hint = &pb.RelCommon_Hint{OutputNames: names}
	}
	if emit != nil {
		c.EmitKind = &pb.RelCommon_Emit_{Emit: &pb.RelCommon_Emit{OutputMapping: emit}}
	} else {
		c.EmitKind = &pb.RelCommon_Direct_{Direct: &pb.RelCommon_Direct{}}
	}
	return c
}

func (p *producer) project(pr *plan.Project) (*pb.Rel, error) {
	in, err := p.rel(pr.Input)
	if err != nil {
		return nil, err
	}
	exprs, err := p.exprs(pr.Exprs)
	if err != nil {
		return nil, err
	}
	// A ProjectRel outputs its input columns and then the expressions; emit keeps only
	// the expressions.
	nin := len(pr.Input.Schema().Fields())
	emit := make([]int32, len(pr.Exprs))
	for i := range emit {
		emit[i] = int32(nin + i)
	}
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: common(dfsNames(pr.Schema().Fields()), emit), Input: in, Expressions: exprs,
	}}}, nil
}

func (p *producer) exprs(es []plan.Expr) ([]*pb.Expression, error) {
	out := make([]*pb.Expression, len(es))
	for i, e := range es {
		x, err := p.expr(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func (p *producer) aggregate(a *plan.Aggregate) (*pb.Rel, error) {
	in, err := p.rel(a.Input)
	if err != nil {
		return nil, err
	}
	groups, err := p.exprs(a.GroupBy)
	if err != nil {
		return nil, err
	}
	rel := &pb.AggregateRel{Common: common(dfsNames(a.Schema().Fields()), nil), Input: in, GroupingExpressions: groups}
	if len(groups) > 0 {
		refs := make([]uint32, len(groups))
		for i := range refs {
			refs[i] = uint32(i)
		}
		rel.Groupings = []*pb.AggregateRel_Grouping{{ExpressionReferences: refs}}
	}
	for _, c := range a.Aggs {
		m, err := p.measure(c)
		if err != nil {
			return nil, err
		}
		rel.Measures = append(rel.Measures, m)
	}
	return &pb.Rel{RelType: &pb.Rel_Aggregate{Aggregate: rel}}, nil
}

func (p *producer) measure(c plan.AggCall) (*pb.AggregateRel_Measure, error) {
	args := make([]*pb.FunctionArgument, len(c.Args))
	for i, a := range c.Args {
		x, err := p.expr(a)
		if err != nil {
			return nil, err
		}
		args[i] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: x}}
	}
	outType, err := toType(c.DataType, c.Null)
	if err != nil {
		return nil, err
	}
	urn, sig := aggregateExtension(c.Func, argTypes(c.Args))
	fn := &pb.AggregateFunction{
		FunctionReference: p.function(urn, sig), Arguments: args, OutputType: outType,
		Phase:      pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation: pb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
	}
	if c.Distinct {
		fn.Invocation = pb.AggregateFunction_AGGREGATION_INVOCATION_DISTINCT
	}
	m := &pb.AggregateRel_Measure{Measure: fn}
	if c.Filter != nil {
		if m.Filter, err = p.expr(c.Filter); err != nil {
			return nil, err
		}
	}
	return m, nil
}

var sortDirections = map[[2]bool]pb.SortField_SortDirection{
	{false, false}: pb.SortField_SORT_DIRECTION_ASC_NULLS_LAST,
	{false, true}:  pb.SortField_SORT_DIRECTION_ASC_NULLS_FIRST,
	{true, false}:  pb.SortField_SORT_DIRECTION_DESC_NULLS_LAST,
	{true, true}:   pb.SortField_SORT_DIRECTION_DESC_NULLS_FIRST,
}

func (p *producer) sort(s *plan.Sort) (*pb.Rel, error) {
	in, err := p.rel(s.Input)
	if err != nil {
		return nil, err
	}
	fields := make([]*pb.SortField, len(s.Keys))
	for i, k := range s.Keys {
		x, err := p.expr(k.Expr)
		if err != nil {
			return nil, err
		}
		dir := sortDirections[[2]bool{k.Descending, k.NullsFirst}]
		fields[i] = &pb.SortField{Expr: x, SortKind: &pb.SortField_Direction{Direction: dir}}
	}
	return &pb.Rel{RelType: &pb.Rel_Sort{Sort: &pb.SortRel{Common: common(nil, nil), Input: in, Sorts: fields}}}, nil
}

func (p *producer) fetch(l *plan.Limit) (*pb.Rel, error) {
	in, err := p.rel(l.Input)
	if err != nil {
		return nil, err
	}
	f := &pb.FetchRel{
		Common:     common(nil, nil),
		Input:      in,
		OffsetMode: &pb.FetchRel_Offset{Offset: l.Offset},
		CountMode:  &pb.FetchRel_Count{Count: l.Count},
	}
	if l.Count < 0 {
		f.CountMode = &pb.FetchRel_Count{Count: -1}
	}
	return &pb.Rel{RelType: &pb.Rel_Fetch{Fetch: f}}, nil
}
