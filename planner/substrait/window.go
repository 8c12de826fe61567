package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// window writes a Window node as a ProjectRel whose expressions are all window function
// expressions: a ProjectRel outputs its input columns followed by its expressions, which is
// exactly the Window's schema. The consumer turns such a ProjectRel back into a Window.
func (p *producer) window(w *plan.Window) (*pb.Rel, error) {
	in, err := p.rel(w.Input)
	if err != nil {
		return nil, err
	}
	exprs := make([]*pb.Expression, len(w.Funcs))
	for i, f := range w.Funcs {
		x, err := p.windowFunc(f)
		if err != nil {
			return nil, err
		}
		exprs[i] = &pb.Expression{RexType: &pb.Expression_WindowFunction_{WindowFunction: x}}
	}
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: common(dfsNames(w.Schema().Fields()), nil), Input: in, Expressions: exprs,
	}}}, nil
}

func (p *producer) windowFunc(f plan.WindowFunc) (*pb.Expression_WindowFunction, error) {
	trailing, roles := windowExtras(f)
	args := make([]*pb.FunctionArgument, 0, len(f.Args)+len(trailing))
	for _, a := range append(append([]plan.Expr(nil), f.Args...), trailing...) {
		x, err := p.expr(a)
		if err != nil {
			return nil, err
		}
		args = append(args, &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: x}})
	}
	outType, err := toType(f.DataType, f.Null)
	if err != nil {
		return nil, err
	}
	urn, sig := URN, anySignature(f.Func, len(f.Args))
	if functions.Aggregates[f.Func] {
		urn, sig = aggregateExtension(f.Func, argTypes(f.Args))
	}
	x := &pb.Expression_WindowFunction{
		FunctionReference: p.function(urn, sig), Arguments: args, OutputType: outType,
		Phase:      pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation: pb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
	}
	if f.Distinct {
		x.Invocation = pb.AggregateFunction_AGGREGATION_INVOCATION_DISTINCT
	}
	if x.Partitions, err = p.exprs(f.PartitionBy); err != nil {
		return nil, err
	}
	for _, k := range f.OrderBy {
		e, err := p.expr(k.Expr)
		if err != nil {
			return nil, err
		}
		x.Sorts = append(x.Sorts, &pb.SortField{Expr: e, SortKind: &pb.SortField_Direction{Direction: sortDirections[[2]bool{k.Descending, k.NullsFirst}]}})
	}
	if len(roles) > 0 {
		x.Options = append(x.Options, &pb.FunctionOption{Name: optTrailing, Preference: roles})
	}
	if f.IgnoreNulls {
		x.Options = append(x.Options, &pb.FunctionOption{Name: optNulls, Preference: []string{"IGNORE"}})
	}
	return x, p.frame(x, f.Frame)
}

// frame writes a frame's unit and bounds; Substrait has ROWS and RANGE frames with integer
// offsets only.
func (p *producer) frame(x *pb.Expression_WindowFunction, f *plan.Frame) error {
	if f == nil {
		return nil
	}
	switch f.Unit {
	case plan.FrameRows:
		x.BoundsType = pb.Expression_WindowFunction_BOUNDS_TYPE_ROWS
	case plan.FrameRange:
		x.BoundsType = pb.Expression_WindowFunction_BOUNDS_TYPE_RANGE
	case plan.FrameGroups:
		x.BoundsType = pb.Expression_WindowFunction_BOUNDS_TYPE_ROWS
		x.Options = append(x.Options, &pb.FunctionOption{Name: optFrameUnit, Preference: []string{"GROUPS"}})
	default:
		return dberr.New(dberr.Internal, "window frame unit %d", f.Unit)
	}
	var err error
	if x.LowerBound, err = bound(f.Start); err != nil {
		return err
	}
	x.UpperBound, err = bound(f.End)
	return err
}

func bound(b plan.FrameBound) (*pb.Expression_WindowFunction_Bound, error) {
	out := &pb.Expression_WindowFunction_Bound{}
	var n int64
	if v, ok := intOffset(b); ok {
		n = v // other offsets are trailing arguments (windowExtras)
	}
	switch b.Kind {
	case plan.Preceding:
		out.Kind = &pb.Expression_WindowFunction_Bound_Preceding_{Preceding: &pb.Expression_WindowFunction_Bound_Preceding{Offset: n}}
	case plan.Following:
		out.Kind = &pb.Expression_WindowFunction_Bound_Following_{Following: &pb.Expression_WindowFunction_Bound_Following{Offset: n}}
	case plan.CurrentRow:
		out.Kind = &pb.Expression_WindowFunction_Bound_CurrentRow_{CurrentRow: &pb.Expression_WindowFunction_Bound_CurrentRow{}}
	default:
		out.Kind = &pb.Expression_WindowFunction_Bound_Unbounded_{Unbounded: &pb.Expression_WindowFunction_Bound_Unbounded{}}
	}
	return out, nil
}

// isWindowProject reports whether every expression of a ProjectRel is a window function.
func isWindowProject(pr *pb.ProjectRel) bool {
	if len(pr.GetExpressions()) == 0 {
		return false
	}
	for _, e := range pr.GetExpressions() {
		if e.GetWindowFunction() == nil {
			return false
		}
	}
	return true
}

// windowProject consumes a ProjectRel of window functions into a Window node.
func (c *consumer) windowProject(pr *pb.ProjectRel, path string) (plan.Node, error) {
	in, err := c.rel(pr.GetInput(), path)
	if err != nil {
		return nil, err
	}
	funcs := make([]plan.WindowFunc, len(pr.GetExpressions()))
	for i, e := range pr.GetExpressions() {
		fp := fmt.Sprintf("%s.expressions[%d]", path, i)
		if funcs[i], err = c.windowFunc(e.GetWindowFunction(), in.Schema(), fp); err != nil {
			return nil, err
		}
		funcs[i].Name = fmt.Sprintf("expr%d", i)
	}
	return emit(plan.NewWindow(in, funcs), pr.GetCommon(), path)
}

func (c *consumer) windowFunc(x *pb.Expression_WindowFunction, in *arrow.Schema, path string) (plan.WindowFunc, error) {
	name, err := c.funcName(x.GetFunctionReference(), path)
	if err != nil {
		return plan.WindowFunc{}, err
	}
	if canonical, ok := functions.AggregateAliases[name]; ok {
		name = canonical
	}
	args, err := c.args(x.GetArguments(), nil, in, path)
	if err != nil {
		return plan.WindowFunc{}, err
	}
	args, extras, err := splitWindowExtras(x, args, path)
	if err != nil {
		return plan.WindowFunc{}, err
	}
	w := plan.WindowFunc{Func: name, Distinct: x.GetInvocation() == pb.AggregateFunction_AGGREGATION_INVOCATION_DISTINCT}
	switch {
	case functions.WindowOnly[name]:
		w.Args, w.DataType, w.Null, err = functions.NewWindowFunc(name, args)
	case functions.Aggregates[name]:
		var agg plan.AggCall
		agg, err = functions.NewAgg(name, args, w.Distinct, name)
		w.Args, w.DataType, w.Null = agg.Args, agg.DataType, agg.Null
	default:
		return w, dberr.NotSupported(fmt.Sprintf("Substrait window function %s (at %s)", name, path))
	}
	if err != nil {
		return w, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
	}
	for i, p := range x.GetPartitions() {
		e, err := c.expr(p, in, fmt.Sprintf("%s.partitions[%d]", path, i))
		if err != nil {
			return w, err
		}
		w.PartitionBy = append(w.PartitionBy, e)
	}
	if w.OrderBy, err = c.sortKeys(x.GetSorts(), in, path); err != nil {
		return w, err
	}
	if w.Frame, err = consumeFrame(x, path); err != nil {
		return w, err
	}
	return w, extras.apply(&w, path)
}

func consumeFrame(x *pb.Expression_WindowFunction, path string) (*plan.Frame, error) {
	if x.GetLowerBound() == nil && x.GetUpperBound() == nil {
		return nil, nil
	}
	f := &plan.Frame{Unit: plan.FrameRange}
	switch x.GetBoundsType() {
	case pb.Expression_WindowFunction_BOUNDS_TYPE_ROWS:
		f.Unit = plan.FrameRows
	case pb.Expression_WindowFunction_BOUNDS_TYPE_RANGE, pb.Expression_WindowFunction_BOUNDS_TYPE_UNSPECIFIED:
	default:
		return nil, invalid(path, "unknown bounds type %s", x.GetBoundsType())
	}
	f.Start = consumeBound(x.GetLowerBound(), true)
	f.End = consumeBound(x.GetUpperBound(), false)
	return f, nil
}

func consumeBound(b *pb.Expression_WindowFunction_Bound, lower bool) plan.FrameBound {
	switch k := b.GetKind().(type) {
	case *pb.Expression_WindowFunction_Bound_Preceding_:
		return plan.FrameBound{Kind: plan.Preceding, Offset: int64Literal(k.Preceding.GetOffset())}
	case *pb.Expression_WindowFunction_Bound_Following_:
		return plan.FrameBound{Kind: plan.Following, Offset: int64Literal(k.Following.GetOffset())}
	case *pb.Expression_WindowFunction_Bound_CurrentRow_:
		return plan.FrameBound{Kind: plan.CurrentRow}
	}
	if lower {
		return plan.FrameBound{Kind: plan.UnboundedPreceding}
	}
	return plan.FrameBound{Kind: plan.UnboundedFollowing}
}
