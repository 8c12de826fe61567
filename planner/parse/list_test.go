package parse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/ast"
)

// TestListLiteralsAndArrayTypes: [x, ...] parses to list_value(x, ...) as in DuckDB, and
// type names take array suffixes ([n] fixed size, [] a list).
func TestListLiteralsAndArrayTypes(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: "[1, 2.5]", want: "list_value(1, 2.5)"},
		{in: "[]", want: "list_value()"},
		{in: "[[1], [2, 3]]", want: "list_value(list_value(1), list_value(2, 3))"},
		{in: "[1.0, 2.0]::FLOAT[2]", want: "CAST(list_value(1.0, 2.0) AS FLOAT[2])"},
		{in: "CAST(v AS DOUBLE[128])", want: "CAST(v AS DOUBLE[128])"},
		{in: "v::INTEGER[]", want: "CAST(v AS INTEGER[])"},
		{in: "v::DECIMAL(10, 2)[3][]", want: "CAST(v AS DECIMAL(10, 2)[3][])"},
		{in: "array_distance(v, [0.5, 1]::FLOAT[2])", want: "array_distance(v, CAST(list_value(0.5, 1) AS FLOAT[2]))"},
		{in: "v::FLOAT[0]", err: "array size must be a positive integer"},
		{in: "v::FLOAT[x]", err: "syntax error"},
		{in: "[1, 2", err: "syntax error"},
		{in: "a && b", want: "(a && b)"},
		{in: "a @> [1]", want: "(a @> list_value(1))"},
		{in: "a<@b", want: "(a <@ b)"},
		{in: "a || b && c", want: "((a || b) && c)"},
		{in: "a + 1 @> b * 2", want: "((a + 1) @> (b * 2))"},
		{in: "a && b = c <@ d", want: "((a && b) = (c <@ d))"},
		{in: "a && b AND c", want: "((a && b) AND c)"},
		{in: "a @>", err: "syntax error"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			stmt, err := Parse("SELECT " + c.in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			sel, ok := stmt.(*ast.Select)
			require.True(t, ok, "%T", stmt)
			require.Equal(t, c.want, ast.Format(sel.Items[0].Expr))
		})
	}
}
