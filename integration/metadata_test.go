package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/stretchr/testify/require"
)

// fetch reads every endpoint of info and returns the schema and the rows as text.
func fetch(ctx context.Context, t *testing.T, cl *flightsql.Client, info *flight.FlightInfo) (*arrow.Schema, [][]string) {
	t.Helper()
	var rows [][]string
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		require.NoError(t, err)
		sc = rdr.Schema()
		for rdr.Next() {
			b := rdr.RecordBatch()
			for r := range int(b.NumRows()) {
				row := make([]string, b.NumCols())
				for c, col := range b.Columns() {
					row[c] = col.ValueStr(r)
				}
				rows = append(rows, row)
			}
		}
		require.NoError(t, rdr.Err())
		rdr.Release()
	}
	return sc, rows
}

// TestMetadataCommands checks every metadata command a JDBC/ADBC navigator sends: exact
// reference schemas (ADBC compares them strictly) and the expected rows.
func TestMetadataCommands(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	ref := flightsql.TableRef{Table: "t"}
	cases := []struct {
		name   string
		info   func() (*flight.FlightInfo, error)
		schema *arrow.Schema
		rows   int // -1: at least one
	}{
		{"catalogs", func() (*flight.FlightInfo, error) { return cl.GetCatalogs(ctx) }, schema_ref.Catalogs, 1},
		{"schemas", func() (*flight.FlightInfo, error) { return cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{}) }, schema_ref.DBSchemas, 1},
		{"tables", func() (*flight.FlightInfo, error) { return cl.GetTables(ctx, &flightsql.GetTablesOpts{}) }, schema_ref.Tables, 1},
		{"table types", func() (*flight.FlightInfo, error) { return cl.GetTableTypes(ctx) }, schema_ref.TableTypes, 1},
		{"primary keys", func() (*flight.FlightInfo, error) { return cl.GetPrimaryKeys(ctx, ref) }, schema_ref.PrimaryKeys, 0},
		{"exported keys", func() (*flight.FlightInfo, error) { return cl.GetExportedKeys(ctx, ref) }, schema_ref.ExportedKeys, 0},
		{"imported keys", func() (*flight.FlightInfo, error) { return cl.GetImportedKeys(ctx, ref) }, schema_ref.ImportedKeys, 0},
		{"cross reference", func() (*flight.FlightInfo, error) {
			return cl.GetCrossReference(ctx, ref, flightsql.TableRef{Table: "t"})
		}, schema_ref.CrossReference, 0},
		{"xdbc types", func() (*flight.FlightInfo, error) { return cl.GetXdbcTypeInfo(ctx, nil) }, schema_ref.XdbcTypeInfo, -1},
		{"sql info: all", func() (*flight.FlightInfo, error) { return cl.GetSqlInfo(ctx, nil) }, schema_ref.SqlInfo, -1},
		{"sql info: known and unknown ids", func() (*flight.FlightInfo, error) {
			return cl.GetSqlInfo(ctx, []flightsql.SqlInfo{0, 8, 9999})
		}, schema_ref.SqlInfo, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := c.info()
			require.NoError(t, err)
			sc, rows := fetch(ctx, t, cl, info)
			require.True(t, c.schema.Equal(sc), "schema\n got %s\nwant %s", sc, c.schema)
			if c.rows >= 0 {
				require.Len(t, rows, c.rows)
			} else {
				require.NotEmpty(t, rows)
			}
		})
	}
}

// TestSqlInfoTypes checks the union member of the ids JDBC casts to a fixed Java type.
func TestSqlInfoTypes(t *testing.T) {
	root := t.TempDir()
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	info, err := cl.GetSqlInfo(ctx, []flightsql.SqlInfo{0, 8, 504, 508, 517, 562})
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	// Union type codes of schema_ref.SqlInfo: 0 string, 1 bool, 2 bigint, 3 int32 bitmask,
	// 4 string list, 5 int32 → int32 list map.
	want := map[uint32]arrow.UnionTypeCode{0: 0, 8: 3, 504: 0, 508: 4, 517: 5, 562: 2}
	got := map[uint32]arrow.UnionTypeCode{}
	for rdr.Next() {
		b := rdr.RecordBatch()
		ids := b.Column(0).(*array.Uint32)
		vals := b.Column(1).(*array.DenseUnion)
		for i := 0; i < ids.Len(); i++ {
			got[ids.Value(i)] = vals.TypeCode(i)
		}
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, want, got)
}
