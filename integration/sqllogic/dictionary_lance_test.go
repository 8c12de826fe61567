package sqllogic

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/blobstore"
)

// TestDictionaryColumnOverLance: a Lance table with an Arrow dictionary-typed column can be
// grouped by it and filtered (takes of dictionary arrays keep their dictionary).
func TestDictionaryColumnOverLance(t *testing.T) {
	ctx := context.Background()
	store, err := blobstore.Open(ctx, filepath.ToSlash(t.TempDir()))
	require.NoError(t, err)
	c := lancecat.New(store)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	sc := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bld := array.NewRecordBuilder(mem, sc)
	for i, s := range []string{"x", "y", "x", "z"} {
		require.NoError(t, bld.Field(0).(*array.BinaryDictionaryBuilder).AppendString(s))
		bld.Field(1).(*array.Int64Builder).Append(int64(i))
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	_, err = c.CreateTable(ctx, "t", sc, []arrow.RecordBatch{rec}, catalog.CreateNew)
	rec.Release()
	require.NoError(t, err)
	q := Direct(c, exec.Env{Mem: mem}, true)
	for _, tc := range []struct {
		sql  string
		want [][]string
	}{
		{"SELECT d, count(*) FROM t GROUP BY d", [][]string{{"x", "2"}, {"y", "1"}, {"z", "1"}}},
		{"SELECT d, v FROM t WHERE v > 1 ORDER BY v", [][]string{{"x", "2"}, {"z", "3"}}},
	} {
		_, rows, err := q(ctx, tc.sql)
		require.NoError(t, err, tc.sql)
		require.ElementsMatch(t, tc.want, rows, tc.sql) // ORDER BY a dictionary column is not supported yet
	}
}
