package substrait_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/substrait"
)

// TestRoundTripRecursive checks that recursive CTEs (an ExtensionMultiRel over an
// ExtensionLeafRel working table) and the pattern rewrites survive SQL → Substrait → plan.
func TestRoundTripRecursive(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	for _, sql := range []string{
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r",
		"WITH RECURSIVE r AS (SELECT id, name FROM t WHERE id = 1 UNION SELECT t.id, t.name FROM t JOIN r ON t.id = r.id + 1) SELECT * FROM r",
		"WITH RECURSIVE a(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM a WHERE x < 3), b(y) AS (SELECT x FROM a UNION ALL SELECT y * 2 FROM b WHERE y < 100) SELECT * FROM b",
		"SELECT name LIKE 'a!%' ESCAPE '!', name GLOB 'a[!b]*', name NOT SIMILAR TO 'a.c', regexp_full_match(name, 'x') FROM t",
		"SELECT qty, grouping(qty), count(*) FROM t GROUP BY ROLLUP (qty)",
	} {
		t.Run(sql, func(t *testing.T) {
			bound := bindSQL(t, sql)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			opt := optimize.Optimize(bound)
			require.Equal(t, describe(opt), describe(roundTrip(t, opt)))
		})
	}
}

func TestRecursiveBadPlans(t *testing.T) {
	bound := bindSQL(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r")
	p, err := substrait.Produce(bound)
	require.NoError(t, err)
	require.NotNil(t, findMulti(p.ProtoReflect()), "the recursive CTE is an ExtensionMultiRel")
	tests := []struct {
		name   string
		mutate func(m *pb.ExtensionMultiRel)
		msg    string
	}{
		{"one input", func(m *pb.ExtensionMultiRel) { m.Inputs = m.Inputs[:1] }, "recursive CTE with 1 inputs"},
		{"working table outside", func(m *pb.ExtensionMultiRel) { m.Inputs[0] = proto.Clone(m.Inputs[1]).(*pb.Rel) }, "outside the step of its recursive CTE"},
		{"foreign detail", func(m *pb.ExtensionMultiRel) { m.Detail.TypeUrl = "type.googleapis.com/x.Y" }, "extension relation with detail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := proto.Clone(p).(*pb.Plan)
			tc.mutate(findMulti(bad.ProtoReflect()))
			b, err := proto.Marshal(bad)
			require.NoError(t, err)
			_, err = substrait.Unmarshal(context.Background(), plantest.Standard(), b)
			require.ErrorContains(t, err, tc.msg)
			_, isDB := dberr.KindOf(err)
			require.True(t, isDB)
		})
	}
}

// findMulti returns the first ExtensionMultiRel in m, depth first.
func findMulti(m protoreflect.Message) *pb.ExtensionMultiRel {
	if x, ok := m.Interface().(*pb.ExtensionMultiRel); ok {
		return x
	}
	var found *pb.ExtensionMultiRel
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && found == nil; i++ {
				found = findMulti(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = findMulti(v.Message())
		}
		return found == nil
	})
	return found
}
