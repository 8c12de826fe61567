package parse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/ast"
)

// TestTableFuncs: name(args) in FROM is a table function with its alias and column
// aliases; LATERAL may precede it; named arguments are not supported yet.
func TestTableFuncs(t *testing.T) {
	cases := []struct {
		in, name, alias string
		nargs           int
		cols            []string
		err             string
	}{
		{in: "SELECT * FROM range(3)", name: "range", nargs: 1},
		{in: "SELECT * FROM RANGE(1, 10, 2) AS r", name: "range", alias: "r", nargs: 3},
		{in: "SELECT * FROM generate_series(1, 3) g(x)", name: "generate_series", alias: "g", nargs: 2, cols: []string{"x"}},
		{in: "SELECT * FROM unnest([1, 2]) AS u(x)", name: "unnest", alias: "u", nargs: 1, cols: []string{"x"}},
		{in: "SELECT * FROM f()", name: "f"},
		{in: "SELECT * FROM unnest(l, recursive := true)", err: "not supported yet: named arguments of table function unnest"},
		{in: "SELECT * FROM range(3", err: "syntax error"},
		{in: "SELECT * FROM range(3) AT (VERSION => 1)", err: "not supported yet: time travel on table functions"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			stmt, err := Parse(c.in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			tf, ok := stmt.(*ast.Select).From.(*ast.TableFunc)
			require.True(t, ok, "%T", stmt.(*ast.Select).From)
			require.Equal(t, c.name, tf.Name)
			require.Equal(t, c.alias, tf.Alias)
			require.Len(t, tf.Args, c.nargs)
			require.Equal(t, c.cols, tf.Columns)
		})
	}
}

// TestLateralTableFunc: LATERAL before a table function, and a comma join with one.
func TestLateralTableFunc(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM t, LATERAL unnest(t.l) u(x)",
		"SELECT * FROM t CROSS JOIN unnest(t.l)",
	} {
		stmt, err := Parse(sql)
		require.NoError(t, err, sql)
		j, ok := stmt.(*ast.Select).From.(*ast.Join)
		require.True(t, ok, sql)
		tf, ok := j.Right.(*ast.TableFunc)
		require.True(t, ok, sql)
		require.Equal(t, "unnest", tf.Name)
	}
	_, err := Parse("SELECT * FROM t, LATERAL u")
	require.ErrorContains(t, err, "LATERAL with anything but a subquery")
}

// TestSlices: x[a:b] is array_slice(x, a, b) with 1 and the largest BIGINT for omitted
// bounds; a step is not supported yet.
func TestSlices(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: "l[2:3]", want: "array_slice(l, 2, 3)"},
		{in: "l[:2]", want: "array_slice(l, 1, 2)"},
		{in: "l[2:]", want: "array_slice(l, 2, 9223372036854775807)"},
		{in: "l[:]", want: "array_slice(l, 1, 9223372036854775807)"},
		{in: "'abc'[-2:-1]", want: "array_slice('abc', -2, -1)"},
		{in: "l[1:2][1]", want: "array_slice(l, 1, 2)[1]"},
		{in: "l[1:2:3]", err: "not supported yet: slices with a step"},
		{in: "l[1:2", err: "syntax error"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			stmt, err := Parse("SELECT " + c.in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, ast.Format(stmt.(*ast.Select).Items[0].Expr))
		})
	}
}

// TestOrderByAll: ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST] is one OrderAll item.
func TestOrderByAll(t *testing.T) {
	first := true
	cases := []struct {
		in    string
		desc  bool
		nulls *bool
	}{
		{in: "SELECT a, b FROM t ORDER BY ALL"},
		{in: "SELECT a, b FROM t ORDER BY ALL DESC", desc: true},
		{in: "SELECT a, b FROM t ORDER BY ALL ASC NULLS FIRST", nulls: &first},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			stmt, err := Parse(c.in)
			require.NoError(t, err)
			ob := stmt.(*ast.Select).OrderBy
			require.Len(t, ob, 1)
			_, ok := ob[0].Expr.(*ast.OrderAll)
			require.True(t, ok, "%T", ob[0].Expr)
			require.Equal(t, c.desc, ob[0].Desc)
			require.Equal(t, c.nulls, ob[0].NullsFirst)
		})
	}
	_, err := Parse("SELECT a FROM t ORDER BY ALL, a")
	require.Error(t, err)
}
