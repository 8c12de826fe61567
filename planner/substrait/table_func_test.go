package substrait_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// TestRoundTripTableFuncs: range/generate_series travel as an ExtensionLeafRel and UNNEST
// as an ExtensionSingleRel over a projection; the consumed plan has the same output
// schema and the same range and unnest nodes.
func TestRoundTripTableFuncs(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	cases := []struct{ sql, node string }{
		{"SELECT * FROM range(3)", "range(0, 3, 1)"},
		{"SELECT x FROM generate_series(-9223372036854775807, 9223372036854775807, 5) g(x)", "generate_series(-9223372036854775807, 9223372036854775807, 5)"},
		{"SELECT * FROM range(NULL)", "range(NULL)"},
		{"SELECT unnest([1, 2]) AS a, unnest(['x']) AS b", "Unnest: list0#0, list1#1"},
		{"SELECT id, unnest(emb) FROM wide", "Unnest: list"},
		{"SELECT id, x FROM wide, unnest(wide.emb) AS u(x) WHERE id > 3", "Unnest: list"},
		{"SELECT [1, 2, 3][2:], name[2:3], name[1] FROM t", "array_slice("},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			for _, n := range []plan.Node{bindSQL(t, c.sql), optimize.Optimize(bindSQL(t, c.sql))} {
				out := roundTrip(t, n)
				require.Equal(t, plantest.SchemaString(n.Schema()), plantest.SchemaString(out.Schema()))
				require.Contains(t, plan.Explain(out), c.node)
			}
		})
	}
}

// TestTableFuncBadPlans: malformed range and unnest relations are InvalidArgument errors
// naming the relation.
func TestTableFuncBadPlans(t *testing.T) {
	tests := []struct {
		name, sql string
		mutate    func(p *pb.Plan)
		msg       string
	}{
		{"range step 0", "SELECT * FROM range(3)", func(p *pb.Plan) {
			setDetail(t, findRel[*pb.ExtensionLeafRel](p.ProtoReflect()).Detail, "step", "0")
		}, "range step 0"},
		{"range bad start", "SELECT * FROM range(3)", func(p *pb.Plan) {
			setDetail(t, findRel[*pb.ExtensionLeafRel](p.ProtoReflect()).Detail, "start", "x")
		}, "range start"},
		{"unnest without lists", "SELECT unnest([1])", func(p *pb.Plan) {
			setDetail(t, findRel[*pb.ExtensionSingleRel](p.ProtoReflect()).Detail, "lists", 5.0)
		}, "unnest of 5 lists"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := substrait.Produce(bindSQL(t, tc.sql))
			require.NoError(t, err)
			tc.mutate(p)
			b, err := proto.Marshal(p)
			require.NoError(t, err)
			_, err = substrait.Unmarshal(context.Background(), plantest.Standard(), b)
			require.ErrorContains(t, err, tc.msg)
			kind, _ := dberr.KindOf(err)
			require.Equal(t, dberr.InvalidInput, kind)
			require.True(t, strings.Contains(err.Error(), "extension_"), err.Error())
		})
	}
}

// findRel finds the first message of type M in m, depth-first.
func findRel[M proto.Message](m protoreflect.Message) M {
	var zero M
	if r, ok := m.Interface().(M); ok {
		return r
	}
	var found M
	ok := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				if r := findRel[M](v.List().Get(i).Message()); any(r) != any(zero) {
					found, ok = r, true
					return false
				}
			}
		case fd.Message() != nil && !fd.IsMap():
			if r := findRel[M](v.Message()); any(r) != any(zero) {
				found, ok = r, true
				return false
			}
		}
		return true
	})
	if ok {
		return found
	}
	return zero
}

// setDetail replaces one field of a flightd extension relation's Struct detail.
func setDetail(t *testing.T, detail *anypb.Any, key string, v any) {
	t.Helper()
	var s structpb.Struct
	require.NoError(t, detail.UnmarshalTo(&s))
	val, err := structpb.NewValue(v)
	require.NoError(t, err)
	s.Fields[key] = val
	require.NoError(t, detail.MarshalFrom(&s))
}
