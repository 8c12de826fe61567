package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

func TestParse(t *testing.T) {
	tests := []struct {
		sql  string
		want string // ast.StatementSQL of the result
	}{
		{"SELECT * FROM t", `SELECT * FROM "t"`},
		{"select a, b AS x, c y from t;", `SELECT "a", "b" AS "x", "c" AS "y" FROM "t"`},
		{"SELECT DISTINCT t.a FROM db.t", `SELECT DISTINCT "t"."a" FROM "db"."t"`},
		{"SELECT t.* FROM t", `SELECT "t".* FROM "t"`},
		{"SELECT a FROM t x", `SELECT "a" FROM "t" AS "x"`},
		{`SELECT "Select" FROM "my table"`, `SELECT "Select" FROM "my table"`},
		// precedence: * over +, AND over OR, comparison over NOT, IS below comparison
		{"SELECT 1 + 2 * 3 - 4 FROM t", `SELECT ((1 + (2 * 3)) - 4) FROM "t"`},
		{"SELECT a OR b AND NOT c = 1 FROM t", `SELECT ("a" OR ("b" AND (NOT ("c" = 1)))) FROM "t"`},
		{"SELECT a = b IS NULL FROM t", `SELECT (("a" = "b") IS NULL) FROM "t"`},
		{"SELECT -a * -2, +3 FROM t", `SELECT ((-"a") * (-2)), (+3) FROM "t"`},
		{"SELECT a % 2, a / b, a || 'x' FROM t", `SELECT ("a" % 2), ("a" / "b"), ("a" || 'x') FROM "t"`},
		{"SELECT a BETWEEN 1 AND 2 AND b FROM t", `SELECT (("a" BETWEEN 1 AND 2) AND "b") FROM "t"`},
		{"SELECT a NOT BETWEEN 1 + 1 AND 5 FROM t", `SELECT ("a" NOT BETWEEN (1 + 1) AND 5) FROM "t"`},
		{"SELECT a IN (1, 2), a NOT IN ('x') FROM t", `SELECT ("a" IN (1, 2)), ("a" NOT IN ('x')) FROM "t"`},
		{"SELECT a LIKE 'x%', a NOT ILIKE '_y' FROM t", `SELECT ("a" LIKE 'x%'), ("a" NOT ILIKE '_y') FROM "t"`},
		{"SELECT a IS NOT NULL, b ISNULL, c NOTNULL FROM t", `SELECT ("a" IS NOT NULL), ("b" IS NULL), ("c" IS NOT NULL) FROM "t"`},
		{"SELECT CASE WHEN a > 1 THEN 'x' WHEN a < 0 THEN 'y' ELSE 'z' END FROM t", `SELECT CASE WHEN ("a" > 1) THEN 'x' WHEN ("a" < 0) THEN 'y' ELSE 'z' END FROM "t"`},
		{"SELECT CASE a WHEN 1 THEN 2 END FROM t", `SELECT CASE "a" WHEN 1 THEN 2 END FROM "t"`},
		{"SELECT CAST(a AS BIGINT), TRY_CAST(b AS DECIMAL(10, 2)), c::double precision, d::VARCHAR FROM t", `SELECT CAST("a" AS BIGINT), TRY_CAST("b" AS DECIMAL(10, 2)), CAST("c" AS DOUBLE), CAST("d" AS VARCHAR) FROM "t"`},
		{"SELECT count(*), count(DISTINCT a), sum(ALL b), coalesce(a, b, 1), now() FROM t", `SELECT "count"(*), "count"(DISTINCT "a"), "sum"("b"), "coalesce"("a", "b", 1), "now"() FROM "t"`},
		{"SELECT 'it''s', 1.5, .5, 1e3, 42, TRUE, false, NULL FROM t", `SELECT 'it''s', 1.5, .5, 1e3, 42, TRUE, FALSE, NULL FROM "t"`},
		{"SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 10:00:00' FROM t", `SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 10:00:00' FROM "t"`},
		{"SELECT ?, $2 FROM t WHERE a = ?", `SELECT ?, $2 FROM "t" WHERE ("a" = ?)`},
		{"SELECT a FROM t WHERE b > 1 GROUP BY a, 2 HAVING count(*) > 1 ORDER BY a DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5",
			`SELECT "a" FROM "t" WHERE ("b" > 1) GROUP BY "a", 2 HAVING ("count"(*) > 1) ORDER BY "a" DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5`},
		{"SELECT a FROM t OFFSET 3 LIMIT 2", `SELECT "a" FROM "t" LIMIT 2 OFFSET 3`},
		{"SELECT a FROM t LIMIT ALL", `SELECT "a" FROM "t"`},
		{"SELECT a, FROM t", `SELECT "a" FROM "t"`},
		{"SELECT a -- comment\n FROM /* block */ t", `SELECT "a" FROM "t"`},
		{"EXPLAIN SELECT a FROM t", `EXPLAIN SELECT "a" FROM "t"`},
		// time travel: DuckDB's AT clause and the aliases, before or after the table alias
		{"SELECT * FROM t AT (VERSION => 3)", `SELECT * FROM "t" AT (VERSION => 3)`},
		{"SELECT * FROM t AT (VERSION => 'prod') AS x", `SELECT * FROM "t" AS "x" AT (VERSION => 'prod')`},
		{"SELECT * FROM t x AT (TIMESTAMP => TIMESTAMP '2026-05-01 12:00:00+00')", `SELECT * FROM "t" AS "x" AT (TIMESTAMP => TIMESTAMP '2026-05-01 12:00:00+00')`},
		{"SELECT * FROM t AT (VERSION => ?)", `SELECT * FROM "t" AT (VERSION => ?)`},
		{"SELECT * FROM t FOR SYSTEM_TIME AS OF '2026-01-01'", `SELECT * FROM "t" AT (TIMESTAMP => '2026-01-01')`},
		{"SELECT * FROM t FOR SYSTEM_VERSION AS OF 4", `SELECT * FROM "t" AT (VERSION => 4)`},
		{"SELECT * FROM t FOR VERSION AS OF 4 x", `SELECT * FROM "t" AS "x" AT (VERSION => 4)`},
		{"SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00'", `SELECT * FROM "t" AT (TIMESTAMP => TIMESTAMP '2026-01-01 00:00:00')`},
		{"SELECT * FROM t VERSION AS OF 2", `SELECT * FROM "t" AT (VERSION => 2)`},
		{"SELECT * FROM t AS v TIMESTAMP AS OF '2026-01-01'", `SELECT * FROM "t" AS "v" AT (TIMESTAMP => '2026-01-01')`},
		{"SELECT version FROM t version", `SELECT "version" FROM "t" AS "version"`},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			stmt, err := Parse(tc.sql)
			require.NoError(t, err)
			got := ast.StatementSQL(stmt)
			require.Equal(t, tc.want, got)
			again, err := Parse(got)
			require.NoError(t, err, "printed SQL must parse again")
			require.Equal(t, got, ast.StatementSQL(again))
		})
	}
}

func TestParsePositions(t *testing.T) {
	stmt, err := Parse("SELECT a,\n  b + 1\nFROM t AT (VERSION => 2)\nWHERE c")
	require.NoError(t, err)
	s := stmt.(*ast.Select)
	require.Equal(t, ast.Pos{Line: 1, Column: 1}, s.Pos)
	require.Equal(t, ast.Pos{Line: 1, Column: 8}, s.Items[0].Expr.Position())
	require.Equal(t, ast.Pos{Line: 2, Column: 3}, s.Items[1].Pos)
	require.Equal(t, ast.Pos{Line: 3, Column: 6}, s.From.Pos)
	require.Equal(t, ast.Pos{Line: 3, Column: 8}, s.From.At.Pos)
	require.Equal(t, ast.Pos{Line: 4, Column: 7}, s.Where.Position())
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		sql          string
		kind         dberr.Kind
		msg          string
		line, column int
	}{
		{"SELEC 1", dberr.Parser, `syntax error at or near "SELEC"`, 1, 1},
		{"SELECT a FROM", dberr.Parser, "syntax error at end of input", 1, 14},
		{"SELECT a FROM t WHERE", dberr.Parser, "syntax error at end of input", 1, 22},
		{"SELECT a,\n  ,b FROM t", dberr.Parser, `syntax error at or near ","`, 2, 3},
		{"SELECT (a FROM t", dberr.Parser, `syntax error at or near "FROM"`, 1, 11},
		{"SELECT 'abc FROM t", dberr.Parser, "unterminated quoted string", 1, 8},
		{`SELECT "abc FROM t`, dberr.Parser, "unterminated quoted identifier", 1, 8},
		{"SELECT a /* x", dberr.Parser, "unterminated /* comment", 1, 10},
		{"SELECT a FROM t\nWHERE a ~ 1", dberr.Parser, `syntax error at or near "~"`, 2, 9},
		{"SELECT 12abc FROM t", dberr.Parser, `syntax error at or near "12a"`, 1, 8},
		{"SELECT CASE END FROM t", dberr.Parser, `syntax error at or near "END"`, 1, 13},
		{"SELECT a FROM t AT (COMMIT => 1)", dberr.Parser, `syntax error at or near "COMMIT"`, 1, 21},
		{"SELECT a FROM t AT (VERSION => 1) AT (VERSION => 2)", dberr.Parser, `syntax error at or near "AT"`, 1, 35},
		{"SELECT a FROM t x y", dberr.NotImplemented, "multiple statements", 1, 19},
		{"SELECT 1; SELECT 2", dberr.NotImplemented, "multiple statements", 1, 11},
		{"SELECT a FROM t JOIN u ON t.a = u.a", dberr.NotImplemented, "not supported yet: JOIN", 1, 17},
		{"SELECT a FROM t, u", dberr.NotImplemented, "not supported yet: JOIN", 1, 16},
		{"SELECT a FROM t LEFT JOIN u USING (a)", dberr.NotImplemented, "JOIN", 1, 17},
		{"SELECT a FROM (SELECT 1)", dberr.NotImplemented, "subqueries in FROM", 1, 15},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u)", dberr.NotImplemented, "subqueries", 1, 29},
		{"SELECT (SELECT 1) FROM t", dberr.NotImplemented, "subqueries", 1, 9},
		{"SELECT EXISTS (SELECT 1) FROM t", dberr.NotImplemented, "EXISTS", 1, 8},
		{"WITH x AS (SELECT 1) SELECT * FROM x", dberr.NotImplemented, "WITH", 1, 1},
		{"SELECT a FROM t UNION SELECT a FROM u", dberr.NotImplemented, "UNION", 1, 17},
		{"SELECT a FROM t EXCEPT SELECT a FROM u", dberr.NotImplemented, "EXCEPT", 1, 17},
		{"SELECT row_number() OVER () FROM t", dberr.NotImplemented, "window functions", 1, 21},
		{"SELECT a FROM t QUALIFY a > 1", dberr.NotImplemented, "QUALIFY", 1, 17},
		{"SELECT sum(a) FILTER (WHERE a > 1) FROM t", dberr.NotImplemented, "aggregate FILTER", 1, 15},
		{"SELECT * EXCLUDE (a) FROM t", dberr.NotImplemented, "* EXCLUDE", 1, 10},
		{"SELECT a FROM read_parquet('x')", dberr.NotImplemented, "table functions", 1, 15},
		{"SELECT a FROM t GROUP BY ALL", dberr.NotImplemented, "GROUP BY ALL", 1, 26},
		{"SELECT INTERVAL '1 day' FROM t", dberr.NotImplemented, "INTERVAL", 1, 8},
		{"SELECT a IS DISTINCT FROM b FROM t", dberr.NotImplemented, "DISTINCT FROM", 1, 13},
		{"SELECT a[1] FROM t", dberr.NotImplemented, "subscripts", 1, 9},
		{"SELECT (a, b) FROM t", dberr.NotImplemented, "row values", 1, 10},
		{"INSERT INTO t VALUES (1)", dberr.NotImplemented, "not supported yet: INSERT", 1, 1},
		{"CREATE TABLE t (a INT)", dberr.NotImplemented, "CREATE", 1, 1},
		{"DELETE FROM t", dberr.NotImplemented, "DELETE", 1, 1},
		{"FROM t", dberr.NotImplemented, "FROM-first", 1, 1},
		{"EXPLAIN ANALYZE SELECT 1", dberr.NotImplemented, "EXPLAIN ANALYZE", 1, 9},
		{"SELECT a FROM t LIMIT 10%", dberr.NotImplemented, "percentage", 1, 25},
		{"SELECT a::INT[] FROM t", dberr.NotImplemented, "array types", 1, 14},
		{"", dberr.Parser, "syntax error at end of input", 1, 1},
		{"SELECT " + strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000) + " FROM t", dberr.NotImplemented, "nested this deeply", 1, 0},
		{"SELECT " + strings.Repeat("- ", 3000) + "1 FROM t", dberr.NotImplemented, "nested this deeply", 1, 0},
	}
	for _, tc := range tests {
		name := tc.sql
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.sql)
			require.Error(t, err)
			var e *dberr.Error
			require.True(t, errors.As(err, &e), "want a *dberr.Error, got %T", err)
			require.Equal(t, tc.kind, e.Kind, err.Error())
			require.Contains(t, e.Msg, tc.msg)
			require.Equal(t, tc.line, e.Line, err.Error())
			if tc.column > 0 {
				require.Equal(t, tc.column, e.Column, err.Error())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t",
		"SELECT a, b + 1 AS c FROM t AT (VERSION => 3) WHERE a > 1 ORDER BY 2 DESC NULLS FIRST LIMIT 5",
		"SELECT count(DISTINCT x), CASE WHEN a IS NULL THEN 'n' ELSE 'y' END FROM t FOR SYSTEM_TIME AS OF '2026-01-01' GROUP BY 1 HAVING count(*) > 0",
		"SELECT CAST(a AS DECIMAL(10,2)), a::INT, a BETWEEN -1 AND 1, a NOT IN (1,2), s LIKE 'x%' FROM t",
		"SELECT 'it''s', \"Quoted\"\"Name\", 1e-3, .5, ?, $1 FROM t VERSION AS OF 'tag' x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmt, err := Parse(sql)
		if err != nil {
			var e *dberr.Error
			if !errors.As(err, &e) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		printed := ast.StatementSQL(stmt)
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("printed form of %q does not parse: %q: %v", sql, printed, err)
		}
		if got := ast.StatementSQL(again); got != printed {
			t.Fatalf("round trip changed the tree:\n%s\n%s", printed, got)
		}
	})
}
