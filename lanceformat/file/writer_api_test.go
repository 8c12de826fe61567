package file_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
)

// nestedSchema is {a: int64, s: struct{x: int32, y: utf8}, l: list<float>}: ids 0..5 in
// pre-order.
var nestedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32), Nullable: true},
}, nil)

func recordFromJSON(t *testing.T, mem memory.Allocator, sc *arrow.Schema, js string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, sc, strings.NewReader(js))
	require.NoError(t, err)
	return rec
}

func TestWriterFileInfo(t *testing.T) {
	tests := []struct {
		version      file.Version
		fields       []int32
		major, minor uint32
	}{
		{file.V2_0, []int32{0, 1, 2, 3, 4, 5}, 2, 0},
		{file.V2_1, []int32{0, 2, 3, 5}, 2, 1},
		{file.V2_2, []int32{0, 2, 3, 5}, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.version.String(), func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			sc, err := schema.FromArrow(nestedSchema, 0)
			require.NoError(t, err)
			store := osStore{t.TempDir()}
			w, err := file.NewWriter(ctx, store, "f.lance", sc, tc.version, file.WithAllocator(mem))
			require.NoError(t, err)
			rec := recordFromJSON(t, mem, nestedSchema,
				`[{"a":1,"s":{"x":2,"y":"q"},"l":[1.5]},{"a":null,"s":{"x":null,"y":null},"l":null}]`)
			defer rec.Release()
			require.NoError(t, w.Write(ctx, rec))
			info, err := w.Close(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.fields, info.Fields)
			idx := make([]int32, len(tc.fields))
			for i := range idx {
				idx[i] = int32(i)
			}
			require.Equal(t, idx, info.ColumnIndices)
			require.Equal(t, [2]uint32{tc.major, tc.minor}, [2]uint32{info.Major, info.Minor})
			require.Equal(t, uint64(2), info.NumRows)
			size, err := store.Size(ctx, "f.lance")
			require.NoError(t, err)
			require.Equal(t, uint64(size), info.Size)

			r, err := file.Open(ctx, store, "f.lance")
			require.NoError(t, err)
			require.Equal(t, tc.version, r.Version())
			require.Equal(t, []int32{0, 1, 4}, []int32{r.Schema().Fields[0].ID, r.Schema().Fields[1].ID, r.Schema().Fields[2].ID})
			require.Equal(t, "y", r.Schema().Fields[1].Children[1].Name)
			require.Equal(t, int32(1), r.Schema().Fields[1].Children[1].ParentID)
		})
	}
}

func TestWriterErrors(t *testing.T) {
	ctx := context.Background()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	sc, err := schema.FromArrow(nestedSchema, 0)
	require.NoError(t, err)

	t.Run("null struct in 2.0", func(t *testing.T) {
		w, err := file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", sc, file.V2_0, file.WithAllocator(mem))
		require.NoError(t, err)
		rec := recordFromJSON(t, mem, nestedSchema, `[{"a":1,"s":null,"l":[]}]`)
		defer rec.Release()
		require.NoError(t, w.Write(ctx, rec)) // buffered
		_, err = w.Close(ctx)
		require.ErrorIs(t, err, file.ErrNotSupported)
		require.Contains(t, err.Error(), "null struct")
	})
	t.Run("packed struct", func(t *testing.T) {
		packed := arrow.NewSchema([]arrow.Field{{Name: "p", Nullable: true,
			Type:     arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}),
			Metadata: arrow.NewMetadata([]string{"lance-encoding:packed"}, []string{"true"})}}, nil)
		psc, err := schema.FromArrow(packed, 0)
		require.NoError(t, err)
		for _, v := range []file.Version{file.V2_0, file.V2_1, file.V2_2} {
			_, err = file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", psc, v)
			require.ErrorIs(t, err, file.ErrNotSupported, v.String())
			require.ErrorContains(t, err, `writing packed struct column "p"`)
		}
	})
	t.Run("batch does not match the schema", func(t *testing.T) {
		w, err := file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", sc, file.V2_1)
		require.NoError(t, err)
		other := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
		rec := recordFromJSON(t, mem, other, `[{"a":1}]`)
		defer rec.Release()
		require.ErrorContains(t, w.Write(ctx, rec), "batch has 1 columns, schema has 3")
		wrongType := arrow.NewSchema([]arrow.Field{
			{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, nestedSchema.Field(1), nestedSchema.Field(2)}, nil)
		rec2 := recordFromJSON(t, mem, wrongType, `[{"a":1,"s":null,"l":null}]`)
		defer rec2.Release()
		require.ErrorContains(t, w.Write(ctx, rec2), `column 0 ("a") is int32, schema says int64`)
		_, err = w.Close(ctx)
		require.NoError(t, err)
	})
	t.Run("item names and nullability may differ", func(t *testing.T) {
		store := osStore{t.TempDir()}
		w, err := file.NewWriter(ctx, store, "f.lance", sc, file.V2_1, file.WithAllocator(mem))
		require.NoError(t, err)
		renamed := arrow.NewSchema([]arrow.Field{nestedSchema.Field(0), nestedSchema.Field(1),
			{Name: "l", Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Float32), Nullable: true}}, nil)
		rec := recordFromJSON(t, mem, renamed, `[{"a":1,"s":null,"l":[2.5]}]`)
		defer rec.Release()
		require.NoError(t, w.Write(ctx, rec))
		_, err = w.Close(ctx)
		require.NoError(t, err)
		r, err := file.Open(ctx, store, "f.lance")
		require.NoError(t, err)
		got, err := r.ReadRange(ctx, []int32{4}, 0, 1, mem)
		require.NoError(t, err)
		defer releaseAll(got)
		require.Equal(t, "[[2.5]]", got[0].String())
	})
	t.Run("use after close", func(t *testing.T) {
		w, err := file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", sc, file.V2_1)
		require.NoError(t, err)
		_, err = w.Close(ctx)
		require.NoError(t, err)
		rec := recordFromJSON(t, mem, nestedSchema, `[{"a":1,"s":null,"l":null}]`)
		defer rec.Release()
		require.ErrorIs(t, w.Write(ctx, rec), file.ErrWriterClosed)
		_, err = w.Close(ctx)
		require.ErrorIs(t, err, file.ErrWriterClosed)
	})
	t.Run("abort releases buffered batches", func(t *testing.T) {
		dir := t.TempDir()
		w, err := file.NewWriter(ctx, osStore{dir}, "f.lance", sc, file.V2_1)
		require.NoError(t, err)
		rec := recordFromJSON(t, mem, nestedSchema, `[{"a":1,"s":null,"l":null}]`)
		require.NoError(t, w.Write(ctx, rec))
		rec.Release()
		w.Abort()
		w.Abort()
		_, err = os.Stat(filepath.Join(dir, "f.lance"))
		require.ErrorIs(t, err, os.ErrNotExist)
		_, err = w.Close(ctx)
		require.ErrorIs(t, err, file.ErrWriterClosed)
	})
	t.Run("unknown version", func(t *testing.T) {
		_, err := file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", sc, file.Version(9))
		require.ErrorIs(t, err, file.ErrNotSupported)
	})
	t.Run("types without a lance logical type", func(t *testing.T) {
		sorted := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
		sorted.KeysSorted = true
		for _, typ := range []arrow.DataType{sorted, arrow.DenseUnionOf(
			[]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32}}, []arrow.UnionTypeCode{0})} {
			_, err := schema.FromArrow(arrow.NewSchema([]arrow.Field{{Name: "m", Type: typ}}, nil), 0)
			require.ErrorIs(t, err, schema.ErrNotSupported, "%s", typ)
		}
	})
	t.Run("fixed-size list of booleans", func(t *testing.T) {
		bs := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.FixedWidthTypes.Boolean)}}, nil)
		bsc, err := schema.FromArrow(bs, 0)
		require.NoError(t, err)
		for _, v := range []file.Version{file.V2_0, file.V2_1} {
			_, err := file.NewWriter(ctx, osStore{t.TempDir()}, "f.lance", bsc, v)
			require.ErrorIs(t, err, file.ErrNotSupported)
			require.ErrorContains(t, err, "fixed-size lists of bool")
		}
	})
}

func TestWriterEmptyFile(t *testing.T) {
	for _, v := range writerVersions {
		t.Run(v.String(), func(t *testing.T) {
			ctx := context.Background()
			sc, err := schema.FromArrow(nestedSchema, 0)
			require.NoError(t, err)
			dir := t.TempDir()
			if d := os.Getenv("LANCE_WRITER_KEEP"); d != "" {
				dir = d
			}
			store := osStore{dir}
			w, err := file.NewWriter(ctx, store, "empty_"+v.String()+".lance", sc, v)
			require.NoError(t, err)
			info, err := w.Close(ctx)
			require.NoError(t, err)
			require.Zero(t, info.NumRows)
			r, err := file.Open(ctx, store, "empty_"+v.String()+".lance")
			require.NoError(t, err)
			require.Zero(t, r.NumRows())
			require.Len(t, r.Schema().Fields, 3)
		})
	}
}

func TestWriterKeepsMetadata(t *testing.T) {
	ctx := context.Background()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	fmd := arrow.NewMetadata([]string{"lance-encoding:compression"}, []string{"zstd"})
	smd := arrow.NewMetadata([]string{"owner"}, []string{"flightd"})
	asc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fmd}}, &smd)
	sc, err := schema.FromArrow(asc, 7)
	require.NoError(t, err)
	store := osStore{t.TempDir()}
	w, err := file.NewWriter(ctx, store, "f.lance", sc, file.V2_1, file.WithAllocator(mem))
	require.NoError(t, err)
	rec := recordFromJSON(t, mem, asc, `[{"s":"a"},{"s":null}]`)
	defer rec.Release()
	require.NoError(t, w.Write(ctx, rec))
	info, err := w.Close(ctx)
	require.NoError(t, err)
	require.Equal(t, []int32{7}, info.Fields, "ids start at the given first id")
	r, err := file.Open(ctx, store, "f.lance")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"lance-encoding:compression": "zstd"}, r.Schema().Fields[0].Metadata)
	require.Equal(t, map[string]string{"owner": "flightd"}, r.Schema().Metadata)
	require.Equal(t, int32(7), r.Schema().Fields[0].ID)
}
