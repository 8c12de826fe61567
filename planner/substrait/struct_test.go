package substrait_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// TestStructRoundTrip: struct literals, struct_pack, row, casts to struct types and field
// access keep their types, field names included, through Substrait (which has no names
// in struct types: flightd's named() call carries them).
func TestStructRoundTrip(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	for _, sql := range []string{
		"SELECT {'a': 1, 'b': {'c': 'x', 'd': [1, 2]}}, [{'k': 1}, {'k': 2}], row(1, 'x')",
		"SELECT {'a': name, 'n': {'q': qty}} AS s, row(id, score) FROM t",
		"SELECT {'a': name, 'n': {'q': qty}}.n.q, struct_pack(x := id)['x'] FROM t",
		"SELECT id FROM t WHERE {'q': qty, 'n': name} = {'q': 1, 'n': 'a'}",
		"SELECT {'q': qty}::STRUCT(q BIGINT, z VARCHAR), TRY_CAST({'q': qty} AS STRUCT(q VARCHAR)) FROM t",
		"SELECT CASE WHEN qty > 1 THEN {'a': 1} ELSE {'a': qty} END FROM t",
	} {
		t.Run(sql, func(t *testing.T) {
			bound := bindSQL(t, sql)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			opt := optimize.Optimize(bound)
			require.Equal(t, describe(opt), describe(roundTrip(t, opt)))
		})
	}
}

// TestStructColumnPlan: field access on a struct column reads the column through the
// scan (the whole struct: scans project top-level columns only), filters on a field are
// pushed into the scan, and the plan survives Substrait with the nested field reference.
func TestStructColumnPlan(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	inner := arrow.StructOf(arrow.Field{Name: "q", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	st := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "p", Type: inner, Nullable: true})
	cat := &plantest.Catalog{Tables: map[string][]plantest.Version{"st": {{Schema: arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: st, Nullable: true},
		{Name: "big", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)}}}}
	stmt, err := parse.Parse("SELECT s.p.q, st.s['a'] FROM st WHERE s.a > 1")
	require.NoError(t, err)
	bound, err := bind.Bind(context.Background(), cat, stmt)
	require.NoError(t, err)
	opt := optimize.Optimize(bound)
	text := plan.Explain(opt)
	require.Contains(t, text, "struct_extract(struct_extract(s#")
	require.Contains(t, text, "gt(struct_extract(s#")
	require.NotContains(t, text, "big", "only the struct column is read:\n"+text)
	b, err := substrait.Marshal(opt)
	require.NoError(t, err)
	back, err := substrait.Unmarshal(context.Background(), cat, b)
	require.NoError(t, err)
	require.Equal(t, describe(opt), describe(back))
}
