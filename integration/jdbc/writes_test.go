package jdbc

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
)

// Writes through JDBC: each full mode writes to its own table (JdbcSmoke --write-table):
// Statement.executeUpdate of an INSERT of three rows, then a PreparedStatement UPDATE with a
// parameter (id >= 2), then reads the table back.

// writeTable is the table mode name writes to.
func writeTable(mode string) string {
	return "w_" + strings.ReplaceAll(mode, "-", "_")
}

// createWriteTables creates, under root, one table per full mode, holding (0, 'init'), and
// returns their names, sorted.
func createWriteTables(t *testing.T, root string, modes []mode) []string {
	t.Helper()
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	cat := lancecat.New(store)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(0)
	b.Field(1).(*array.StringBuilder).Append("init")
	rec := b.NewRecordBatch()
	defer rec.Release()
	var names []string
	for _, m := range modes {
		if m.full {
			_, err := cat.CreateTable(ctx, writeTable(m.name), sc, []arrow.RecordBatch{rec}, catalog.CreateNew)
			require.NoError(t, err)
			names = append(names, writeTable(m.name))
		}
	}
	sort.Strings(names)
	return names
}

// checkWrites checks the counts JDBC got for the writes and the table read back after them.
func checkWrites(t *testing.T, r run, table string) {
	t.Helper()
	ins := r.find(t, "write", "insert", "INSERT INTO "+table+" VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	require.True(t, ins.OK, "executeUpdate INSERT: %s", ins.Error)
	require.NotNil(t, ins.Count)
	require.Equal(t, int64(3), *ins.Count)
	upd := r.find(t, "write", "prepared-update", "UPDATE "+table+" SET name = 'z' WHERE id >= ?")
	require.True(t, upd.OK, "prepared executeUpdate UPDATE: %s", upd.Error)
	require.NotNil(t, upd.Count)
	require.Equal(t, int64(2), *upd.Count)
	res := r.find(t, "write", "result", "SELECT id, name FROM "+table+" ORDER BY id")
	require.True(t, res.OK, "read back: %s", res.Error)
	got := res.result(t)
	require.Equal(t, []string{"id", "name"}, got.Names)
	require.Equal(t, [][]string{{"0", "init"}, {"1", "a"}, {"2", "z"}, {"3", "z"}}, got.Rows)
}
