package substrait

import (
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/planner/plan"
)

// joinTypes maps plan join types to Substrait's (cross joins are CrossRels).
var joinTypes = map[plan.JoinType]pb.JoinRel_JoinType{
	plan.InnerJoin: pb.JoinRel_JOIN_TYPE_INNER, plan.LeftJoin: pb.JoinRel_JOIN_TYPE_LEFT,
	plan.RightJoin: pb.JoinRel_JOIN_TYPE_RIGHT, plan.FullJoin: pb.JoinRel_JOIN_TYPE_OUTER,
	plan.SemiJoin: pb.JoinRel_JOIN_TYPE_LEFT_SEMI, plan.AntiJoin: pb.JoinRel_JOIN_TYPE_LEFT_ANTI,
	plan.MarkJoin: pb.JoinRel_JOIN_TYPE_LEFT_MARK,
}

// join writes a CrossRel for a cross join and a JoinRel otherwise. The JoinRel expression
// is and(equal(leftKey, rightKey)..., residual) over the left columns followed by the right
// ones; the consumer splits it back with plan.SplitJoinCondition.
func (p *producer) join(j *plan.Join) (*pb.Rel, error) {
	left, err := p.rel(j.Left)
	if err != nil {
		return nil, err
	}
	right, err := p.rel(j.Right)
	if err != nil {
		return nil, err
	}
	if j.Type == plan.CrossJoin && len(j.LeftKeys) == 0 && j.Cond == nil {
		return &pb.Rel{RelType: &pb.Rel_Cross{Cross: &pb.CrossRel{Common: common(nil, nil), Left: left, Right: right}}}, nil
	}
	nleft := j.Left.Schema().NumFields()
	var conj []plan.Expr
	for i := range j.LeftKeys {
		conj = append(conj, &plan.Call{Func: "equal", Args: []plan.Expr{j.LeftKeys[i], plan.Shift(j.RightKeys[i], nleft)},
			DataType: boolType, Null: j.LeftKeys[i].Nullable() || j.RightKeys[i].Nullable()})
	}
	conj = append(conj, plan.SplitConjuncts(j.Cond)...)
	cond := plan.Conjoin(conj)
	if cond == nil {
		cond = &plan.Literal{Value: scalar.NewBooleanScalar(true)}
	}
	x, err := p.expr(cond)
	if err != nil {
		return nil, err
	}
	typ := joinTypes[j.Type]
	if j.Type == plan.CrossJoin {
		typ = pb.JoinRel_JOIN_TYPE_INNER
	}
	return &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{Common: common(nil, nil), Left: left, Right: right, Expression: x, Type: typ}}}, nil
}

// setOps maps (kind, all) to Substrait's set operations.
var setOps = map[[2]int]pb.SetRel_SetOp{
	{int(plan.Union), 0}: pb.SetRel_SET_OP_UNION_DISTINCT, {int(plan.Union), 1}: pb.SetRel_SET_OP_UNION_ALL,
	{int(plan.Intersect), 0}: pb.SetRel_SET_OP_INTERSECTION_MULTISET, {int(plan.Intersect), 1}: pb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL,
	{int(plan.Except), 0}: pb.SetRel_SET_OP_MINUS_PRIMARY, {int(plan.Except), 1}: pb.SetRel_SET_OP_MINUS_PRIMARY_ALL,
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *producer) setOp(s *plan.SetOp) (*pb.Rel, error) {
	left, err := p.rel(s.Left)
	if err != nil {
		return nil, err
	}
	right, err := p.rel(s.Right)
	if err != nil {
		return nil, err
	}
	op := setOps[[2]int{int(s.Kind), boolToInt(s.All)}]
	return &pb.Rel{RelType: &pb.Rel_Set{Set: &pb.SetRel{Common: common(nil, nil), Inputs: []*pb.Rel{left, right}, Op: op}}}, nil
}

// values writes a ReadRel of a VirtualTable: one struct expression per row.
func (p *producer) values(v *plan.Values) (*pb.Rel, error) {
	base, err := namedStruct(v.Schema())
	if err != nil {
		return nil, err
	}
	vt := &pb.ReadRel_VirtualTable{}
	for _, row := range v.Rows {
		fields, err := p.exprs(row)
		if err != nil {
			return nil, err
		}
		vt.Expressions = append(vt.Expressions, &pb.Expression_Nested_Struct{Fields: fields})
	}
	read := &pb.ReadRel{Common: common(nil, nil), BaseSchema: base, ReadType: &pb.ReadRel_VirtualTable_{VirtualTable: vt}}
	return &pb.Rel{RelType: &pb.Rel_Read{Read: read}}, nil
}
