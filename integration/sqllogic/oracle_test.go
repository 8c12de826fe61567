package sqllogic

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/slt"
)

func TestOracleChanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	o := pool.get(t, mem, "")
	defer pool.put(o)

	type change struct {
		table, kind string
		version     uint64
		rows        []string
	}
	steps := []struct {
		sql  string
		want []change
	}{
		{"CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (2, NULL)) v(k, s)", []change{{"t", ChangeCreate, 1, []string{"1\ta", "2\tNULL"}}}},
		{"INSERT INTO t VALUES (3, 'c')", []change{{"t", ChangeAppend, 2, []string{"3\tc"}}}},
		{"INSERT INTO t SELECT * FROM t WHERE false", []change{{"t", ChangeAppend, 3, nil}}},
		{"UPDATE t SET s = 'b' WHERE k = 2", []change{{"t", ChangeOverwrite, 4, []string{"1\ta", "2\tb", "3\tc"}}}},
		{"CREATE TABLE IF NOT EXISTS t AS SELECT 1 AS k", nil},
		{"CREATE OR REPLACE TABLE t AS SELECT 9 AS k", []change{{"t", ChangeOverwrite, 5, []string{"9"}}}},
		{"DROP TABLE t", []change{{"t", ChangeDrop, 0, nil}}},
		{"CREATE TABLE t AS SELECT 7 AS k", []change{{"t", ChangeCreate, 1, []string{"7"}}}},
		{"SELECT 1", nil},
	}
	for _, s := range steps {
		changes, err := o.Apply(ctx, s.sql)
		require.NoError(t, err, s.sql)
		var got []change
		for _, c := range changes {
			got = append(got, change{c.Table, c.Kind, c.Version, slt.ResultLines(slt.RenderBatches(c.Batches), slt.NoSort)})
		}
		releaseChanges(changes)
		require.Equal(t, s.want, got, s.sql)
	}

	_, err := o.Apply(ctx, "CREATE VIEW v AS SELECT 1")
	require.ErrorIs(t, err, ErrOracle)
	require.ErrorContains(t, err, "not supported by the sqllogic harness")
	_, err = o.Apply(ctx, "INSERT INTO missing VALUES (1)")
	require.ErrorIs(t, err, ErrOracle)
}

func TestOracleTimeTravel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	o := pool.get(t, mem, "")
	defer pool.put(o)
	for _, sql := range []string{"CREATE TABLE t AS SELECT 1 AS k", "INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)"} {
		require.NoError(t, o.Exec(ctx, sql))
	}
	cases := []struct {
		sql, types string
		rows       []string
	}{
		{"SELECT count(*) FROM t", "I", []string{"3"}},
		{"SELECT k FROM t AT (VERSION => 1)", "I", []string{"1"}},
		{"SELECT t.k FROM t AT (VERSION => 2) ORDER BY t.k", "I", []string{"1", "2"}},
		{"SELECT x.k FROM t AT (VERSION => 2) x WHERE x.k > 1", "I", []string{"2"}},
		{"SELECT k FROM t FOR VERSION AS OF 1", "I", []string{"1"}},
		{"SELECT count(*) FROM t VERSION AS OF 2 WHERE k > 0", "I", []string{"2"}},
	}
	for _, c := range cases {
		types, rows, err := o.Query(ctx, c.sql)
		require.NoError(t, err, c.sql)
		require.Equal(t, c.types, types, c.sql)
		require.Equal(t, c.rows, slt.ResultLines(rows, slt.NoSort), c.sql)
	}
	_, _, err := o.Query(ctx, "SELECT k FROM t AT (VERSION => 4)")
	require.ErrorContains(t, err, "table t has no version 4")
}
