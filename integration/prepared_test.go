package integration

import (
	"context"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestPreparedStatementParameters prepares a statement with a placeholder, checks the
// parameter schema the client gets, binds values and compares with DuckDB.
func TestPreparedStatementParameters(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stmt, err := cl.Prepare(ctx, "SELECT a, b FROM t WHERE a > ? AND b <> ? ORDER BY a LIMIT 5")
	require.NoError(t, err)
	defer stmt.Close(ctx)
	require.Equal(t, 2, stmt.ParameterSchema().NumFields())
	require.Equal(t, arrow.INT64, stmt.ParameterSchema().Field(0).Type.ID())

	// Executing before binding is a clear error.
	_, err = stmt.Execute(ctx)
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	for _, bound := range []struct {
		a int64
		b string
	}{{500, "s001"}, {990, "s000"}} {
		ib := array.NewInt64Builder(mem)
		ib.Append(bound.a)
		sb := array.NewStringBuilder(mem)
		sb.Append(bound.b)
		ia, sa := ib.NewArray(), sb.NewArray()
		ib.Release()
		sb.Release()
		rec := array.NewRecordBatch(stmt.ParameterSchema(), []arrow.Array{ia, sa}, 1)
		ia.Release()
		sa.Release()
		stmt.SetParameters(rec)
		rec.Release()

		info, err := stmt.Execute(ctx)
		require.NoError(t, err)
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		var batches []arrow.RecordBatch
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		require.NoError(t, rdr.Err())
		got := itest.ToResult(rdr.Schema(), batches)
		rdr.Release()
		for _, b := range batches {
			b.Release()
		}
		sql := "SELECT a, b FROM t WHERE a > " + strconv.FormatInt(bound.a, 10) + " AND b <> '" + bound.b + "' ORDER BY a LIMIT 5"
		require.Equal(t, itest.Oracle(t, root, sql).String(), got.String())
	}
}
