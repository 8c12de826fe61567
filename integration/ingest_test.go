package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ingestBatch builds a batch of (id int64, name utf8) rows [from, from+n).
func ingestBatch(mem memory.Allocator, from, n int) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("n" + strings.Repeat("x", i%3))
	}
	return b.NewRecordBatch()
}

// TestIngestCreateAppendReplace ingests through arrow-go's client with each table definition
// option and checks every result with pylance.
func TestIngestCreateAppendReplace(t *testing.T) {
	root := t.TempDir()
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	type opts = pb.CommandStatementIngest_TableDefinitionOptions
	create := &opts{IfNotExist: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_CREATE,
		IfExists: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_FAIL}
	appendTo := &opts{IfNotExist: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_FAIL,
		IfExists: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_APPEND}
	replace := &opts{IfNotExist: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_CREATE,
		IfExists: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_REPLACE}

	ingest := func(table string, o *opts, from, n int) (int64, error) {
		b := ingestBatch(mem, from, n)
		defer b.Release()
		rdr, err := array.NewRecordReader(b.Schema(), []arrow.RecordBatch{b})
		require.NoError(t, err)
		defer rdr.Release()
		return cl.ExecuteIngest(ctx, rdr, &flightsql.ExecuteIngestOpts{Table: table, TableDefinitionOptions: o})
	}
	pylance := func(table string) string {
		out := itest.RunScript(t, "lance_summary.py", filepath.Join(root, table+".lance"))
		return strings.TrimSpace(string(out))
	}

	n, err := ingest("people", create, 0, 100)
	require.NoError(t, err)
	require.Equal(t, int64(100), n)
	require.Equal(t, "version=1 rows=100 sum=4950 schema=id:int64,name:string", pylance("people"))

	_, err = ingest("people", create, 0, 10)
	require.Equal(t, codes.AlreadyExists, status.Code(err), "%v", err)

	_, err = ingest("people", appendTo, 100, 50)
	require.NoError(t, err)
	require.Equal(t, "version=2 rows=150 sum=11175 schema=id:int64,name:string", pylance("people"))

	_, err = ingest("people", replace, 1000, 3)
	require.NoError(t, err)
	require.Equal(t, "version=3 rows=3 sum=3003 schema=id:int64,name:string", pylance("people"))

	_, err = ingest("nobody", appendTo, 0, 1)
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)

	// The ingested table is queryable right away.
	got, err := itest.Query(ctx, t, cl, "SELECT count(*), sum(id) FROM people")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"3", "3003"}}, got.Rows)
}
