package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

var boolType = arrow.FixedWidthTypes.Boolean

// consumedJoinTypes maps Substrait join types to plan join types.
var consumedJoinTypes = map[pb.JoinRel_JoinType]plan.JoinType{
	pb.JoinRel_JOIN_TYPE_INNER: plan.InnerJoin, pb.JoinRel_JOIN_TYPE_LEFT: plan.LeftJoin,
	pb.JoinRel_JOIN_TYPE_RIGHT: plan.RightJoin, pb.JoinRel_JOIN_TYPE_OUTER: plan.FullJoin,
	pb.JoinRel_JOIN_TYPE_LEFT_SEMI: plan.SemiJoin, pb.JoinRel_JOIN_TYPE_LEFT_ANTI: plan.AntiJoin,
	pb.JoinRel_JOIN_TYPE_LEFT_MARK: plan.MarkJoin,
}

func (c *consumer) join(j *pb.JoinRel, path string) (plan.Node, error) {
	left, err := c.rel(j.GetLeft(), path+".left")
	if err != nil {
		return nil, err
	}
	right, err := c.rel(j.GetRight(), path+".right")
	if err != nil {
		return nil, err
	}
	typ, ok := consumedJoinTypes[j.GetType()]
	if !ok {
		return nil, dberr.NotSupported(fmt.Sprintf("Substrait join type %s (at %s)", j.GetType(), path))
	}
	if j.GetPostJoinFilter() != nil {
		return nil, dberr.NotSupported("Substrait post-join filters (at " + path + ")")
	}
	both := concatSchemas(left.Schema(), right.Schema())
	var lk, rk []plan.Expr
	var rest plan.Expr
	if j.GetExpression() != nil {
		cond, err := c.predicate(j.GetExpression(), both, path+".expression")
		if err != nil {
			return nil, err
		}
		if lit, isLit := cond.(*plan.Literal); !isLit || !lit.Value.IsValid() || lit.String() != "true" {
			lk, rk, rest = plan.SplitJoinCondition(cond, left.Schema().NumFields())
		}
	}
	return emit(plan.NewJoin(left, right, typ, lk, rk, rest), j.GetCommon(), path)
}

func concatSchemas(a, b *arrow.Schema) *arrow.Schema {
	return arrow.NewSchema(append(append([]arrow.Field{}, a.Fields()...), b.Fields()...), nil)
}

func (c *consumer) cross(x *pb.CrossRel, path string) (plan.Node, error) {
	left, err := c.rel(x.GetLeft(), path+".left")
	if err != nil {
		return nil, err
	}
	right, err := c.rel(x.GetRight(), path+".right")
	if err != nil {
		return nil, err
	}
	return emit(plan.NewJoin(left, right, plan.CrossJoin, nil, nil, nil), x.GetCommon(), path)
}

// consumedSetOps maps Substrait set operations to (kind, all).
var consumedSetOps = map[pb.SetRel_SetOp]struct {
	kind plan.SetOpKind
	all  bool
}{
	pb.SetRel_SET_OP_UNION_DISTINCT: {plan.Union, false}, pb.SetRel_SET_OP_UNION_ALL: {plan.Union, true},
	pb.SetRel_SET_OP_INTERSECTION_MULTISET: {plan.Intersect, false}, pb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL: {plan.Intersect, true},
	pb.SetRel_SET_OP_MINUS_PRIMARY: {plan.Except, false}, pb.SetRel_SET_OP_MINUS_PRIMARY_ALL: {plan.Except, true},
}

// set consumes a SetRel of two or more inputs (more than two fold left to right).
func (c *consumer) set(s *pb.SetRel, path string) (plan.Node, error) {
	op, ok := consumedSetOps[s.GetOp()]
	if !ok {
		return nil, dberr.NotSupported(fmt.Sprintf("Substrait set operation %s (at %s)", s.GetOp(), path))
	}
	if len(s.GetInputs()) < 2 {
		return nil, invalid(path, "set operation with %d inputs", len(s.GetInputs()))
	}
	var out plan.Node
	for i, in := range s.GetInputs() {
		n, err := c.rel(in, fmt.Sprintf("%s.inputs[%d]", path, i))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = n
			continue
		}
		if err := sameColumnTypes(out.Schema(), n.Schema()); err != nil {
			return nil, invalid(path, "%v", err)
		}
		out = plan.NewSetOp(out, n, op.kind, op.all)
	}
	return emit(out, s.GetCommon(), path)
}

func sameColumnTypes(a, b *arrow.Schema) error {
	if a.NumFields() != b.NumFields() {
		return fmt.Errorf("inputs have %d and %d columns", a.NumFields(), b.NumFields())
	}
	for i := range a.Fields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return fmt.Errorf("column %d has types %s and %s", i, a.Field(i).Type, b.Field(i).Type)
		}
	}
	return nil
}

// virtualTable consumes a ReadRel of a VirtualTable into a Values node: names and types
// come from the base schema, every row's expressions are cast to them.
func (c *consumer) virtualTable(r *pb.ReadRel, vt *pb.ReadRel_VirtualTable, path string) (plan.Node, error) {
	if len(vt.GetValues()) > 0 { //nolint:staticcheck // deprecated literal rows
		return nil, dberr.NotSupported("Substrait virtual tables with literal rows; use expressions (at " + path + ")")
	}
	schema, err := schemaOf(r.GetBaseSchema(), path)
	if err != nil {
		return nil, err
	}
	empty := arrow.NewSchema(nil, nil)
	rows := make([][]plan.Expr, len(vt.GetExpressions()))
	for i, row := range vt.GetExpressions() {
		if len(row.GetFields()) != schema.NumFields() {
			return nil, invalid(path, "row %d has %d values, the schema %d columns", i, len(row.GetFields()), schema.NumFields())
		}
		for k, f := range row.GetFields() {
			e, err := c.expr(f, empty, fmt.Sprintf("%s.expressions[%d][%d]", path, i, k))
			if err != nil {
				return nil, err
			}
			if e, err = functions.Cast(e, schema.Field(k).Type); err != nil {
				return nil, err
			}
			rows[i] = append(rows[i], e)
		}
	}
	return emit(plan.NewValues(schema, rows), r.GetCommon(), path)
}

// schemaOf converts a NamedStruct into an Arrow schema: each column's name, then the
// names of the struct fields inside it, depth-first.
func schemaOf(ns *pb.NamedStruct, path string) (*arrow.Schema, error) {
	types := ns.GetStruct().GetTypes()
	names := ns.GetNames()
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		if len(names) == 0 {
			return nil, invalid(path, "base schema has fewer names than columns")
		}
		dt, err := fromType(t)
		if err != nil {
			return nil, wrapType(err, path)
		}
		name := names[0]
		if dt, names, err = renameType(dt, names[1:]); err != nil { // struct.go
			return nil, invalid(path, "base schema names do not fit column %s", name)
		}
		fields[i] = arrow.Field{Name: name, Type: dt, Nullable: isNullable(t)}
	}
	if len(names) != 0 {
		return nil, invalid(path, "base schema has %d names too many", len(names))
	}
	return arrow.NewSchema(fields, nil), nil
}

// isNullable reads the nullability of any Substrait type kind.
func isNullable(t *pb.Type) bool {
	m := t.ProtoReflect()
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
	if fd == nil || fd.Message() == nil {
		return true
	}
	inner := m.Get(fd).Message()
	nf := inner.Descriptor().Fields().ByName("nullability")
	if nf == nil {
		return true
	}
	return pb.Type_Nullability(inner.Get(nf).Enum()) != pb.Type_NULLABILITY_REQUIRED
}
