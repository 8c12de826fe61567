package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestVectorSearchMatchesDuckDB writes embedding tables with pylance (float32[128] with NULL
// rows, float16[16], int8[16], float64[8]; three fragments) and checks that flightd's
// distance functions and exact kNN (ORDER BY distance LIMIT k, a TopN) over Flight SQL
// equal DuckDB's over pylance's reading of the same tables. DuckDB cannot read float16, so
// its side of the float16 queries reads the same values stored as float32.
func TestVectorSearchMatchesDuckDB(t *testing.T) {
	root, oracleRoot := t.TempDir(), t.TempDir()
	q128 := strings.TrimSpace(string(itest.RunScript(t, "vector_tables.py", root, oracleRoot)))
	require.Len(t, strings.Split(q128, ","), 128)
	q := fmt.Sprintf("[%s]::FLOAT[128]", q128)
	q16 := "[0.5, -1, 0.25, 2, 0, 1.5, -0.75, 1, -2, 0.125, 3, -1.25, 0.5, 0.5, -0.5, 1]::FLOAT[16]"
	q8 := "[0.25, -0.5, 1, 2, 0, 0.5, -0.75, 1]::DOUBLE[8]"
	type pair struct{ name, flightd, duckdb string }
	same := func(name, sql string) pair { return pair{name, sql, sql} }
	cases := []pair{
		same("l2 knn", "SELECT id, array_distance(v32, "+q+") AS d FROM emb ORDER BY d, id LIMIT 10"),
		same("cosine knn", "SELECT id, array_cosine_distance(v32, "+q+") AS d FROM emb ORDER BY d, id LIMIT 10"),
		same("similarity top", "SELECT id, array_cosine_similarity(v32, "+q+") AS s FROM emb ORDER BY s DESC, id LIMIT 10"),
		same("inner product", "SELECT id, array_inner_product(v32, "+q+") AS s, array_negative_inner_product("+q+", v32) FROM emb ORDER BY s DESC, id LIMIT 10"),
		same("nulls", "SELECT id, array_distance(v32, "+q+") FROM emb WHERE id < 40 ORDER BY id"),
		same("aggregate", "SELECT count(*), count(array_distance(v32, "+q+")), sum(CASE WHEN array_distance(v32, "+q+") < 15 THEN 1 ELSE 0 END) FROM emb"),
		same("self join pairs", "SELECT a.id, b.id, array_distance(a.v32, b.v32) AS d FROM emb a, emb b WHERE a.id < 20 AND b.id < 20 AND a.id < b.id ORDER BY d, a.id, b.id LIMIT 5"),
		same("int8 cast", "SELECT id, array_distance(v8::FLOAT[16], "+q16+") AS d FROM emb ORDER BY d, id LIMIT 10"),
		same("int8 cosine", "SELECT id, array_cosine_similarity(v8::FLOAT[16], v16f) AS d FROM emb WHERE id < 30 ORDER BY id"),
		same("double", "SELECT id, array_distance(v64, "+q8+") AS d, array_cosine_similarity(v64, "+q8+") FROM emb ORDER BY d, id LIMIT 10"),
		same("list over arrays", "SELECT id, list_distance(v64, [1, 2, 3, 4, 5, 6, 7, 8]) AS d FROM emb ORDER BY d, id LIMIT 5"),
		{
			"float16 knn",
			"SELECT h.id, array_distance(h.v16, " + q16 + ") AS d FROM half h ORDER BY d, id LIMIT 10",
			"SELECT id, array_distance(v16f, " + q16 + ") AS d FROM emb ORDER BY d, id LIMIT 10",
		},
		{
			"float16 inner product",
			"SELECT id, array_inner_product(v16, " + q16 + ") AS d, array_cosine_distance(v16, " + q16 + ") FROM half WHERE id % 100 = 7 ORDER BY id",
			"SELECT id, array_inner_product(v16f, " + q16 + ") AS d, array_cosine_distance(v16f, " + q16 + ") FROM emb WHERE id % 100 = 7 ORDER BY id",
		},
	}
	sqls := make([]string, len(cases))
	for i, c := range cases {
		sqls[i] = c.duckdb
	}
	wait := itest.Oracles(t, oracleRoot, sqls)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	got := make([]itest.Result, len(cases))
	for i, c := range cases {
		res, err := itest.Query(ctx, t, cl, c.flightd)
		require.NoError(t, err, c.name)
		got[i] = res
	}
	want := wait()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := want[c.duckdb]
			require.NotEmpty(t, w.Rows)
			require.Equal(t, w.Rows, got[i].Rows, c.flightd)
		})
	}
	t.Run("knn runs as a TopN", func(t *testing.T) {
		got, err := itest.Query(ctx, t, cl, "EXPLAIN ANALYZE "+cases[0].flightd)
		require.NoError(t, err)
		require.Len(t, got.Rows, 1)
		require.Contains(t, got.Rows[0][1], "[TopN with Sort")
		require.Contains(t, got.Rows[0][1], "array_distance(")
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct{ sql, msg string }{
			{"SELECT array_distance(v32, v16f) FROM emb", "Array arguments must be of the same size"},
			{"SELECT array_distance(v8, v8) FROM emb", "Arguments must be arrays of FLOAT or DOUBLE"},
			{"SELECT list_distance(v64, [1, 2]) FROM emb", "list dimensions must be equal, got left length '8' and right length '2'"},
		} {
			_, err := itest.Query(ctx, t, cl, c.sql)
			require.ErrorContains(t, err, c.msg, c.sql)
		}
	})
}
