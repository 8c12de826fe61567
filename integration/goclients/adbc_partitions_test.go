package goclients

import (
	"context"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestADBCPartitionsAndSchema runs scans that flightd splits into several endpoints through
// ADBC's ExecutePartitions and reads each partition with ReadPartition (what a parallel
// fetcher does), checking that the partitions together hold DuckDB's rows, and that
// ExecuteSchema gives the result's schema without running the query.
func TestADBCPartitionsAndSchema(t *testing.T) {
	root := tables(t)
	sqls := []string{
		"SELECT a, b, c FROM t",
		"SELECT a, b FROM t WHERE a > 300",
	}
	want := oracle(t, root, sqls...)
	srv := itest.StartServer(t, root, flightsrv.Config{MaxEndpoints: 2})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()

	for _, sql := range sqls {
		t.Run(sql, func(t *testing.T) {
			st, err := cn.NewStatement()
			require.NoError(t, err)
			defer func() { require.NoError(t, st.Close()) }()
			require.NoError(t, st.SetSqlQuery(sql))

			sc, err := st.(adbc.StatementExecuteSchema).ExecuteSchema(ctx)
			require.NoError(t, err)
			require.Equal(t, want[sql].Names, fieldNames(sc))

			psc, parts, _, err := st.ExecutePartitions(ctx)
			require.NoError(t, err)
			require.True(t, sc.Equal(psc), "ExecuteSchema %s\nExecutePartitions %s", sc, psc)
			require.Equal(t, uint64(2), parts.NumPartitions, "the table's two fragments, one endpoint each")
			var got itest.Result
			for _, id := range parts.PartitionIDs {
				rdr, err := cn.ReadPartition(ctx, id)
				require.NoError(t, err)
				require.True(t, psc.Equal(rdr.Schema()), "partition schema %s", rdr.Schema())
				part := readAll(t, rdr)
				require.NotEmpty(t, part.Rows, "every partition holds rows")
				got.Names = part.Names
				got.Rows = append(got.Rows, part.Rows...)
			}
			require.Equal(t, want[sql].Sorted().String(), got.Sorted().String())
		})
	}
}
