package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// find returns the messages of type T in m, depth first.
func find[T proto.Message](m proto.Message) []T {
	var out []T
	var walk func(protoreflect.Message)
	walk = func(r protoreflect.Message) {
		if x, ok := r.Interface().(T); ok {
			out = append(out, x)
		}
		r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return out
}

func stringLiteral(s string) *pb.Expression {
	return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_String_{String_: s}}}}
}

func nullString() *pb.Expression {
	return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		Nullable: true,
		LiteralType: &pb.Expression_Literal_Null{Null: &pb.Type{Kind: &pb.Type_String_{
			String_: &pb.Type_String{Nullability: pb.Type_NULLABILITY_NULLABLE}}}},
	}}}
}

func appendArg(f *pb.Expression_ScalarFunction, e *pb.Expression) {
	f.Arguments = append(f.Arguments, &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: e}})
}

// TestConsumeDataFusionShapes: plans shaped the way DataFusion's producer writes them are
// consumed into the same plan as flightd's own (or refused plainly when not supported).
func TestConsumeDataFusionShapes(t *testing.T) {
	tests := []struct {
		name   string
		sql    string
		mutate func(p *pb.Plan)
		kind   dberr.Kind // 0: the consumed plan must equal the unmutated one's
		msg    string
	}{
		{"grouping keys in both styles", "SELECT name, count(*) AS n FROM t GROUP BY name", func(p *pb.Plan) {
			agg := find[*pb.AggregateRel](p)[0]
			require.NotEmpty(t, agg.GroupingExpressions)
			agg.Groupings[0].GroupingExpressions = agg.GroupingExpressions //nolint:staticcheck // DataFusion fills both
		}, 0, ""},
		{"old-style grouping only", "SELECT name, count(*) AS n FROM t GROUP BY name", func(p *pb.Plan) {
			agg := find[*pb.AggregateRel](p)[0]
			agg.Groupings[0].GroupingExpressions = agg.GroupingExpressions //nolint:staticcheck // older producers
			agg.Groupings[0].ExpressionReferences = nil
			agg.GroupingExpressions = nil
		}, 0, ""},
		{"like with a null escape", "SELECT name FROM t WHERE name LIKE 'a%'", func(p *pb.Plan) {
			appendArg(find[*pb.FilterRel](p)[0].GetCondition().GetScalarFunction(), nullString())
		}, 0, ""},
		{"like with an escape character", "SELECT name FROM t WHERE name LIKE 'a%'", func(p *pb.Plan) {
			appendArg(find[*pb.FilterRel](p)[0].GetCondition().GetScalarFunction(), stringLiteral(`\`))
		}, dberr.NotImplemented, "like with an ESCAPE character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := produce(t, tc.sql)
			want, err := consume(p)
			require.NoError(t, err)
			tc.mutate(p)
			got, err := consume(p)
			if tc.kind != 0 {
				require.Error(t, err)
				k, ok := dberr.KindOf(err)
				require.True(t, ok, "unclassified error: %v", err)
				require.Equal(t, tc.kind, k, err.Error())
				require.Contains(t, err.Error(), tc.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, describe(want), describe(got))
		})
	}
}

// scalarSubquery is the root input of sql's plan as a scalar subquery expression. sql must
// use no functions (the two plans' extension anchors are not merged).
func scalarSubquery(t *testing.T, sql string) *pb.Expression {
	t.Helper()
	inner := produce(t, sql)
	require.Empty(t, inner.GetExtensions())
	return &pb.Expression{RexType: &pb.Expression_Subquery_{Subquery: &pb.Expression_Subquery{
		SubqueryType: &pb.Expression_Subquery_Scalar_{Scalar: &pb.Expression_Subquery_Scalar{
			Input: inner.GetRelations()[0].GetRoot().GetInput()}}}}}
}

// TestConsumeScalarSubquery: an uncorrelated scalar subquery (DataFusion keeps them in
// TPC-H Q11, Q15 and Q22) is planned like the binder plans one: a single_value aggregate
// cross joined onto the input, whose extra column is projected away.
func TestConsumeScalarSubquery(t *testing.T) {
	tests := []struct {
		name   string
		sql    string
		mutate func(t *testing.T, p *pb.Plan)
		want   string // EXPLAIN text, or the error text
		kind   dberr.Kind
	}{
		{"in a filter", "SELECT name FROM t WHERE qty > 1", func(t *testing.T, p *pb.Plan) {
			cond := find[*pb.FilterRel](p)[0].GetCondition().GetScalarFunction()
			cond.Arguments[1] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: scalarSubquery(t, "SELECT qty FROM t LIMIT 1")}}
		}, "Project: name := name#1\n" +
			"  Project: id := id#0, name := name#1, score := score#2, qty := qty#3, day := day#4, ts := ts#5\n" +
			"    Filter: gt(qty#3, qty#6)\n" +
			"      Join: cross\n" +
			"        Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n" +
			"        Aggregate: group=[] aggs=[qty := single_value(qty#0)]\n" +
			"          Limit: offset=0 count=1\n" +
			"            Project: qty := qty#3\n" +
			"              Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n", 0},
		{"in a projection", "SELECT qty + 1 AS q FROM t", func(t *testing.T, p *pb.Plan) {
			add := find[*pb.ProjectRel](p)[0].GetExpressions()[0].GetScalarFunction()
			add.Arguments[1] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: scalarSubquery(t, "SELECT qty FROM t LIMIT 1")}}
		}, "Project: q := add(qty#3, qty#6)\n" +
			"  Join: cross\n" +
			"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n" +
			"    Aggregate: group=[] aggs=[qty := single_value(qty#0)]\n" +
			"      Limit: offset=0 count=1\n" +
			"        Project: qty := qty#3\n" +
			"          Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n", 0},
		{"two columns", "SELECT name FROM t WHERE qty > 1", func(t *testing.T, p *pb.Plan) {
			cond := find[*pb.FilterRel](p)[0].GetCondition().GetScalarFunction()
			cond.Arguments[1] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: scalarSubquery(t, "SELECT qty, id FROM t")}}
		}, "scalar subquery returns 2 columns", dberr.InvalidInput},
		{"in an aggregate", "SELECT sum(qty) FROM t", func(t *testing.T, p *pb.Plan) {
			m := find[*pb.AggregateRel](p)[0].GetMeasures()[0].GetMeasure()
			m.Arguments[0] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: scalarSubquery(t, "SELECT qty FROM t LIMIT 1")}}
		}, "scalar subqueries outside filter conditions and projections", dberr.NotImplemented},
		{"IN subquery", "SELECT name FROM t WHERE qty > 1", func(t *testing.T, p *pb.Plan) {
			f := find[*pb.FilterRel](p)[0]
			f.Condition = &pb.Expression{RexType: &pb.Expression_Subquery_{Subquery: &pb.Expression_Subquery{
				SubqueryType: &pb.Expression_Subquery_InPredicate_{InPredicate: &pb.Expression_Subquery_InPredicate{}}}}}
		}, "IN, EXISTS and comparison subqueries", dberr.NotImplemented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := produce(t, tc.sql)
			tc.mutate(t, p)
			n, err := consume(p)
			if tc.kind != 0 {
				require.Error(t, err)
				k, ok := dberr.KindOf(err)
				require.True(t, ok, "unclassified error: %v", err)
				require.Equal(t, tc.kind, k, err.Error())
				require.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, plan.Explain(n))
			require.Equal(t, 1, n.Schema().NumFields(), plantest.SchemaString(n.Schema()))
		})
	}
}
