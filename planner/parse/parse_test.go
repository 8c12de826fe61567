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
		{"SELECT a FROM t UNION ALL BY NAME SELECT b FROM u", `(SELECT "a" FROM "t") UNION ALL BY NAME (SELECT "b" FROM "u")`},
		{"SELECT string_agg(a, ',' ORDER BY b DESC NULLS FIRST, c) FROM t", `SELECT "string_agg"("a", ',' ORDER BY "b" DESC NULLS FIRST, "c") FROM "t"`},
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
		{"SELECT substring(a FROM 1 FOR 2), SUBSTRING(a FROM b + 1), substring(a FOR 3), substring(a, 2, 1) FROM t",
			`SELECT "substring"("a", 1, 2), "substring"("a", ("b" + 1)), "substring"("a", 1, 3), "substring"("a", 2, 1) FROM "t"`},
		{"SELECT CAST(a AS BIGINT), TRY_CAST(b AS DECIMAL(10, 2)), c::double precision, d::VARCHAR FROM t", `SELECT CAST("a" AS BIGINT), TRY_CAST("b" AS DECIMAL(10, 2)), CAST("c" AS DOUBLE), CAST("d" AS VARCHAR) FROM "t"`},
		{"SELECT count(*), count(DISTINCT a), sum(ALL b), coalesce(a, b, 1), now() FROM t", `SELECT "count"(*), "count"(DISTINCT "a"), "sum"("b"), "coalesce"("a", "b", 1), "now"() FROM "t"`},
		{"SELECT 'it''s', 1.5, .5, 1e3, 42, TRUE, false, NULL FROM t", `SELECT 'it''s', 1.5, .5, 1e3, 42, TRUE, FALSE, NULL FROM "t"`},
		{"SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 10:00:00' FROM t", `SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 10:00:00' FROM "t"`},
		{"SELECT ?, $2 FROM t WHERE a = ?", `SELECT ?, $2 FROM "t" WHERE ("a" = ?)`},
		{"SELECT a FROM t WHERE b > 1 GROUP BY a, 2 HAVING count(*) > 1 ORDER BY a DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5",
			`SELECT "a" FROM "t" WHERE ("b" > 1) GROUP BY "a", 2 HAVING ("count"(*) > 1) ORDER BY "a" DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5`},
		{"SELECT a FROM t OFFSET 3 LIMIT 2", `SELECT "a" FROM "t" LIMIT 2 OFFSET 3`},
		{"SELECT a FROM t LIMIT ALL", `SELECT "a" FROM "t"`},
		// quantified comparisons: SOME is ANY; ANY/ALL not followed by ( are names
		{"SELECT a > ANY (SELECT b FROM u), a <= all (SELECT b FROM u), a = SOME (SELECT 1) FROM t",
			`SELECT ("a" > ANY (SELECT "b" FROM "u")), ("a" <= ALL (SELECT "b" FROM "u")), ("a" = ANY (SELECT 1)) FROM "t"`},
		// LATERAL before a subquery changes nothing in DuckDB's scoping
		{"SELECT * FROM t, LATERAL (SELECT t.a) x", `SELECT * FROM "t", (SELECT "t"."a") AS "x"`},
		{"SELECT * FROM t LEFT JOIN LATERAL (SELECT t.a) x ON true", `SELECT * FROM "t" LEFT JOIN (SELECT "t"."a") AS "x" ON TRUE`},
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
		// joins
		{"SELECT * FROM t JOIN u ON t.a = u.a", `SELECT * FROM "t" JOIN "u" ON ("t"."a" = "u"."a")`},
		{"SELECT * FROM t INNER JOIN u USING (a, b)", `SELECT * FROM "t" JOIN "u" USING ("a", "b")`},
		{"SELECT * FROM t LEFT OUTER JOIN u ON true RIGHT JOIN v ON false", `SELECT * FROM "t" LEFT JOIN "u" ON TRUE RIGHT JOIN "v" ON FALSE`},
		{"SELECT * FROM t FULL JOIN u USING (a) CROSS JOIN v", `SELECT * FROM "t" FULL JOIN "u" USING ("a") CROSS JOIN "v"`},
		{"SELECT * FROM t SEMI JOIN u USING (a) ANTI JOIN v ON x", `SELECT * FROM "t" SEMI JOIN "u" USING ("a") ANTI JOIN "v" ON "x"`},
		{"SELECT * FROM t NATURAL JOIN u, v AS w NATURAL LEFT JOIN x", `SELECT * FROM "t" NATURAL JOIN "u", ("v" AS "w" NATURAL LEFT JOIN "x")`},
		{"SELECT * FROM t x, u AT (VERSION => 2) y", `SELECT * FROM "t" AS "x", "u" AS "y" AT (VERSION => 2)`},
		{"SELECT * FROM (t JOIN u ON a = b) JOIN v USING (c)", `SELECT * FROM "t" JOIN "u" ON ("a" = "b") JOIN "v" USING ("c")`},
		// subqueries, CTEs, set operations, VALUES
		{"SELECT * FROM (SELECT a FROM t) s(x)", `SELECT * FROM (SELECT "a" FROM "t") AS "s"("x")`},
		{"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s)", `SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS "v"("n", "s")`},
		{"VALUES (1), (2)", `VALUES (1), (2)`},
		{"WITH a AS (SELECT 1), b(x) AS MATERIALIZED (SELECT 2) SELECT * FROM a, b", `WITH "a" AS (SELECT 1), "b"("x") AS (SELECT 2) SELECT * FROM "a", "b"`},
		{"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", `WITH RECURSIVE "r" AS (SELECT 1) SELECT * FROM "r"`},
		{"SELECT a IS TRUE, a IS NOT FALSE, a IS UNKNOWN, 7 // 2, left(s, 2), right(s, 1) FROM t", `SELECT ("a" IS NOT DISTINCT FROM TRUE), ("a" IS DISTINCT FROM FALSE), ("a" IS NULL), (7 // 2), "left"("s", 2), "right"("s", 1) FROM "t"`},
		{"SELECT position('l' IN s), position(s, 'l'), mod(a, 3) FROM t", `SELECT "strpos"("s", 'l'), "position"("s", 'l'), "mod"("a", 3) FROM "t"`},
		// pattern matches become DuckDB's function calls
		{"SELECT a LIKE 'x!%' ESCAPE '!', a NOT ILIKE b ESCAPE c FROM t", `SELECT "like_escape"("a", 'x!%', '!'), (NOT "ilike_escape"("a", "b", "c")) FROM "t"`},
		{"SELECT a GLOB 'x*' AND a NOT GLOB 'y?' FROM t", `SELECT ("glob"("a", 'x*') AND (NOT "glob"("a", 'y?'))) FROM "t"`},
		{"SELECT a SIMILAR TO 'x.*', a NOT SIMILAR TO b || 'c' FROM t", `SELECT "regexp_full_match"("a", 'x.*'), (NOT "regexp_full_match"("a", ("b" || 'c'))) FROM "t"`},
		{"SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 3", `(SELECT "a" FROM "t") UNION ALL (SELECT "b" FROM "u") ORDER BY 1 LIMIT 3`},
		{"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT DISTINCT SELECT 4", `((SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))) EXCEPT (SELECT 4)`},
		{"(SELECT 1 LIMIT 1) ORDER BY 1", `SELECT * FROM (SELECT 1 LIMIT 1) ORDER BY 1`},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u) AND NOT EXISTS (SELECT 1 FROM v WHERE v.c = t.c)",
			`SELECT "a" FROM "t" WHERE (("a" IN (SELECT "b" FROM "u")) AND (NOT EXISTS(SELECT 1 FROM "v" WHERE ("v"."c" = "t"."c"))))`},
		{"SELECT (SELECT max(b) FROM u), a NOT IN (SELECT 1) FROM t", `SELECT (SELECT "max"("b") FROM "u"), ("a" NOT IN (SELECT 1)) FROM "t"`},
		{"SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM NULL FROM t", `SELECT ("a" IS DISTINCT FROM "b"), ("a" IS NOT DISTINCT FROM NULL) FROM "t"`},
		{"SELECT INTERVAL '1 day', INTERVAL 3 MONTHS, INTERVAL '2' HOUR FROM t", `SELECT INTERVAL '1 day', INTERVAL '3' MONTH, INTERVAL '2' HOUR FROM "t"`},
		{"EXPLAIN ANALYZE SELECT 1", `EXPLAIN ANALYZE SELECT 1`},
		{"SELECT row_number() OVER (PARTITION BY a ORDER BY b DESC), sum(c) OVER w, lag(c, 1) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), count(*) OVER (RANGE UNBOUNDED PRECEDING) FROM t WINDOW w AS (ORDER BY d NULLS FIRST) QUALIFY row_number() OVER w = 1",
			`SELECT "row_number"() OVER (PARTITION BY "a" ORDER BY "b" DESC), "sum"("c") OVER "w", "lag"("c", 1) OVER ("w" ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "count"(*) OVER (RANGE UNBOUNDED PRECEDING) FROM "t" WINDOW "w" AS (ORDER BY "d" NULLS FIRST) QUALIFY ("row_number"() OVER "w" = 1)`},
		{"SELECT DISTINCT ON (a, b + 1) a, c FROM t ORDER BY a", `SELECT DISTINCT ON ("a", ("b" + 1)) "a", "c" FROM "t" ORDER BY "a"`},
		{"SELECT a, b, sum(c) FROM t GROUP BY ROLLUP (a, b), CUBE (c), GROUPING SETS ((a, b), (a), ())",
			`SELECT "a", "b", "sum"("c") FROM "t" GROUP BY ROLLUP ("a", "b"), CUBE ("c"), GROUPING SETS (("a", "b"), ("a"), ())`},
		// DDL and DML parse into the AST (binding them is not supported yet)
		{"CREATE OR REPLACE TABLE IF NOT EXISTS main.t (a INTEGER NOT NULL PRIMARY KEY, b VARCHAR DEFAULT 'x', c DECIMAL(10, 2) NULL)",
			`CREATE OR REPLACE TABLE IF NOT EXISTS "main"."t" ("a" INTEGER NOT NULL PRIMARY KEY, "b" VARCHAR DEFAULT 'x', "c" DECIMAL(10, 2))`},
		{"CREATE TABLE t2 AS SELECT * FROM t", `CREATE TABLE "t2" AS SELECT * FROM "t"`},
		{"INSERT INTO t (a, b) VALUES (1, 'x'), (2, NULL)", `INSERT INTO "t"("a", "b") VALUES (1, 'x'), (2, NULL)`},
		{"INSERT INTO t SELECT * FROM u", `INSERT INTO "t" SELECT * FROM "u"`},
		{"UPDATE t AS x SET a = a + 1, b = 'y' FROM u WHERE x.id = u.id", `UPDATE "t" AS "x" SET "a" = ("a" + 1), "b" = 'y' FROM "u" WHERE ("x"."id" = "u"."id")`},
		{"DELETE FROM t WHERE a < 0", `DELETE FROM "t" WHERE ("a" < 0)`},
		{"DROP TABLE IF EXISTS t", `DROP TABLE IF EXISTS "t"`},
		{"ALTER TABLE t ADD COLUMN c BIGINT", `ALTER TABLE "t" ADD COLUMN "c" BIGINT`},
		{"ALTER TABLE t DROP c", `ALTER TABLE "t" DROP COLUMN "c"`},
		{"ALTER TABLE t RENAME COLUMN a TO b", `ALTER TABLE "t" RENAME COLUMN "a" TO "b"`},
		{"ALTER TABLE t RENAME TO u", `ALTER TABLE "t" RENAME TO "u"`},
		{"CREATE UNIQUE INDEX IF NOT EXISTS i ON t USING btree (a, b)", `CREATE UNIQUE INDEX IF NOT EXISTS "i" ON "t" USING "btree" ("a", "b")`},
		{"MERGE INTO t USING (SELECT * FROM u) AS s ON t.id = s.id WHEN MATCHED AND s.del THEN DELETE WHEN MATCHED THEN UPDATE SET a = s.a WHEN NOT MATCHED THEN INSERT (id, a) VALUES (s.id, s.a)",
			`MERGE INTO "t" USING (SELECT * FROM "u") AS "s" ON ("t"."id" = "s"."id") WHEN MATCHED AND "s"."del" THEN DELETE WHEN MATCHED THEN UPDATE SET "a" = "s"."a" WHEN NOT MATCHED THEN INSERT("id", "a") VALUES ("s"."id", "s"."a")`},
		{"SELECT * EXCLUDE (a, b) REPLACE (c + 1 AS c), t.* EXCLUDE d FROM t GROUP BY ALL", `SELECT * EXCLUDE ("a", "b") REPLACE (("c" + 1) AS "c"), "t".* EXCLUDE ("d") FROM "t" GROUP BY ALL`},
		{"SELECT count(*) FILTER (WHERE a > 1), sum(b) FILTER (b < 0), EXTRACT(year FROM d), current_date, current_timestamp FROM t",
			`SELECT "count"(*) FILTER (WHERE ("a" > 1)), "sum"("b") FILTER (WHERE ("b" < 0)), "date_part"('YEAR', "d"), "current_date"(), "current_timestamp"() FROM "t"`},
		// struct values (the printed form must parse back to the same tree)
		{"SELECT {'a': 1, b: 'x', \"c d\": NULL}", `SELECT {'a': 1, 'b': 'x', 'c d': NULL}`},
		{"SELECT {'a': {'b': [1, 2]},}", `SELECT {'a': {'b': "list_value"(1, 2)}}`},
		{"SELECT struct_pack(a := 1, \"B\" := c + 1) FROM t", `SELECT {'a': 1, 'B': ("c" + 1)} FROM "t"`},
		{"SELECT row(1, 'x'), (a, b + 1) FROM t", `SELECT "row"(1, 'x'), "row"("a", ("b" + 1)) FROM "t"`},
		{"SELECT s.a, t.s.a.b FROM t", `SELECT "s"."a", "t"."s"."a"."b" FROM "t"`},
		{"SELECT (s).a, {'a': 1}.a, f(x).y.z FROM t", `SELECT ("s")."a", ({'a': 1})."a", (("f"("x"))."y")."z" FROM "t"`},
		{"SELECT s['a'], l[1 + 1], s['a']['b'] FROM t", `SELECT "s"['a'], "l"[(1 + 1)], "s"['a']['b'] FROM "t"`},
		{"SELECT s::STRUCT(a INTEGER, \"b c\" VARCHAR[]), CAST(x AS ROW(a INT)) FROM t", `SELECT CAST("s" AS STRUCT("a" INTEGER, "b c" VARCHAR[])), CAST("x" AS STRUCT("a" INT)) FROM "t"`},
		{"SELECT {'a': 1} = {'a': 2}, (1, 2) IN ((1, 2), (3, 4))", `SELECT ({'a': 1} = {'a': 2}), ("row"(1, 2) IN ("row"(1, 2), "row"(3, 4)))`},
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
	require.Equal(t, ast.Pos{Line: 3, Column: 6}, s.From.(*ast.TableRef).Pos)
	require.Equal(t, ast.Pos{Line: 3, Column: 8}, s.From.(*ast.TableRef).At.Pos)
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
		{"SELECT a FROM t JOIN u", dberr.Parser, "syntax error at end of input", 1, 23},
		{"SELECT a FROM t CROSS JOIN u ON a = b", dberr.Parser, `syntax error at or near "ON"`, 1, 30},
		{"SELECT a FROM t NATURAL JOIN u USING (a)", dberr.Parser, `syntax error at or near "USING"`, 1, 32},
		{"SELECT a FROM t LEFT u", dberr.Parser, `syntax error at or near "u"`, 1, 22},
		{"SELECT a FROM t POSITIONAL JOIN u", dberr.NotImplemented, "POSITIONAL JOIN", 1, 17},
		{"SELECT a FROM t, LATERAL t2", dberr.NotImplemented, "LATERAL", 1, 18},
		{"SELECT a FROM (SELECT 1", dberr.Parser, "syntax error at end of input", 1, 24},
		{"SELECT a FROM (t JOIN u ON true) AS x", dberr.NotImplemented, "parenthesised joins", 1, 34},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM)", dberr.Parser, `syntax error at or near ")"`, 1, 42},
		{"SELECT EXISTS 1 FROM t", dberr.Parser, `syntax error at or near "1"`, 1, 15},
		{"WITH x AS SELECT 1 SELECT * FROM x", dberr.Parser, `syntax error at or near "SELECT"`, 1, 11},
		{"WITH RECURSIVE x AS (SELECT 1) SELECT * FROM x LIMIT", dberr.Parser, "end of input", 1, 53},
		{"SELECT a SIMILAR TO 'x' ESCAPE '#' FROM t", dberr.NotImplemented, "SIMILAR TO ... ESCAPE", 1, 25},
		{"SELECT a GLOB 'x' ESCAPE '#' FROM t", dberr.Parser, `syntax error at or near "ESCAPE"`, 1, 19},
		{"SELECT a SIMILAR 'x' FROM t", dberr.Parser, `syntax error at or near "'x'"`, 1, 18},
		{"SELECT a LIKE 'x' ESCAPE FROM t", dberr.Parser, `syntax error at or near "FROM"`, 1, 26},
		{"SELECT a FROM t EXCEPT BY NAME SELECT a FROM u", dberr.Parser, "Invalid combination of EXCEPT and BY NAME", 1, 17},
		{"SELECT a FROM t UNION", dberr.Parser, "end of input", 1, 22},
		{"VALUES (1, 2), (3)", dberr.Parser, "VALUES lists must all be the same length", 1, 1},
		{"SELECT a IS DISTINCT b FROM t", dberr.Parser, `syntax error at or near "b"`, 1, 22},
		{"SELECT INTERVAL 1 FROM t", dberr.Parser, `syntax error at or near "FROM"`, 1, 19},
		{"SELECT INTERVAL a DAY FROM t", dberr.NotImplemented, "INTERVAL with a non-constant", 1, 17},
		{"SELECT sum(a) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM t", dberr.NotImplemented, "frame EXCLUDE", 1, 62},
		{"SELECT sum(a) OVER (ROWS UNBOUNDED) FROM t", dberr.Parser, `syntax error at or near ")"`, 1, 35},
		{"SELECT a FROM t WINDOW w (ORDER BY a)", dberr.Parser, `syntax error at or near "("`, 1, 26},
		{"SELECT sum(a) FILTER (a > 1 FROM t", dberr.Parser, `syntax error at or near "FROM"`, 1, 29},
		{"SELECT EXTRACT(1 FROM d) FROM t", dberr.Parser, `syntax error at or near "1"`, 1, 16},
		{"SELECT * RENAME (a AS b) FROM t", dberr.NotImplemented, "* RENAME", 1, 10},
		{"SELECT * REPLACE (a b) FROM t", dberr.Parser, `syntax error at or near "b"`, 1, 21},
		{"SELECT a FROM 'x.parquet'", dberr.NotImplemented, "reading files in FROM", 1, 15},
		{"SELECT a FROM t GROUP BY CUBE (a, b, c, d, e, f, g, h, i, j, k, l, m)", dberr.NotImplemented, "CUBE of more than 12", 1, 26},
		{"SELECT a FROM t GROUP BY GROUPING SETS (a, (b)", dberr.Parser, "end of input", 1, 47},
		{"INSERT OR REPLACE INTO t VALUES (1)", dberr.NotImplemented, "INSERT OR REPLACE", 1, 8},
		{"INSERT INTO t VALUES (1) RETURNING a", dberr.NotImplemented, "RETURNING in INSERT", 1, 26},
		{"CREATE VIEW v AS SELECT 1", dberr.NotImplemented, "CREATE VIEW", 1, 8},
		{"CREATE TABLE t (a INT, PRIMARY KEY (a))", dberr.NotImplemented, "table constraints", 1, 24},
		{"CREATE TABLE t (a)", dberr.Parser, `syntax error at or near ")"`, 1, 18},
		{"DELETE t", dberr.Parser, `syntax error at or near "t"`, 1, 8},
		{"DROP SCHEMA s", dberr.NotImplemented, "DROP SCHEMA", 1, 6},
		{"ALTER TABLE t ALTER COLUMN a SET DATA TYPE INT", dberr.NotImplemented, "ALTER TABLE ALTER", 1, 15},
		{"MERGE INTO t USING u ON t.a = u.a", dberr.Parser, "end of input", 1, 34},
		{"UPDATE t SET a = 1 RETURNING *", dberr.NotImplemented, "RETURNING", 1, 20},
		{"FROM t", dberr.NotImplemented, "FROM-first", 1, 1},
		{"SELECT a FROM t LIMIT 10%", dberr.NotImplemented, "percentage", 1, 25},
		{"SELECT {}", dberr.Parser, "at least one field", 1, 9},
		{"SELECT {'a' 1}", dberr.Parser, `syntax error at or near "1"`, 1, 13},
		{"SELECT {1: 2}", dberr.Parser, `syntax error at or near "1"`, 1, 9},
		{"SELECT {'a': 1", dberr.Parser, "end of input", 1, 15},
		{"SELECT struct_pack(a := 1, 2)", dberr.Parser, "named arguments", 1, 28},
		{"SELECT list_sort(x := 1)", dberr.NotImplemented, "named arguments of list_sort", 1, 18},
		{"SELECT l[1:2:1] FROM t", dberr.NotImplemented, "slices with a step", 1, 13},
		{"SELECT CAST(x AS STRUCT()) FROM t", dberr.Parser, `syntax error at or near ")"`, 1, 25},
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
			require.ErrorAs(t, err, &e, "want a *dberr.Error, got %T", err)
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
		"SELECT {'a': 1, b: [{'c': 2}]}.b[1].c, struct_pack(x := s.a) FROM t WHERE (a, b) = row(1, 2)",
		"SELECT s['a'], CAST(s AS STRUCT(a INT, b STRUCT(c VARCHAR)[]))::ROW(a BIGINT) FROM t",
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
