package file_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// TestCorruptPageNamesFileAndColumn damages the page bytes of one column of a file our
// writer wrote and checks that ReadRange and Take fail with ErrCorruptFile naming the
// file, the field and the column (and never panic), while the undamaged column still reads.
func TestCorruptPageNamesFileAndColumn(t *testing.T) {
	for _, v := range []file.Version{file.V2_0, file.V2_1} {
		t.Run(v.String(), func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			dir := t.TempDir()
			gens := []*genField{
				{name: "i", typ: arrow.PrimitiveTypes.Int64, smallInt: true},
				{name: "s", typ: arrow.BinaryTypes.String, strMode: 1},
			}
			asc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: gens[0].typ}, {Name: "s", Type: gens[1].typ}}, nil)
			sc, err := schema.FromArrow(asc, 0)
			require.NoError(t, err)
			w, err := file.NewWriter(ctx, osStore{dir}, "f.lance", sc, v, file.WithAllocator(mem))
			require.NoError(t, err)
			b := genBatch(rand.New(rand.NewPCG(3, 4)), mem, asc, gens, 3000)
			require.NoError(t, w.Write(ctx, b))
			b.Release()
			_, err = w.Close(ctx)
			require.NoError(t, err)

			damagePages(t, filepath.Join(dir, "f.lance"), 1)
			r, err := file.Open(ctx, dirStore{dir}, "f.lance")
			require.NoError(t, err)
			ids := []int32{sc.Fields[0].ID, sc.Fields[1].ID}
			good, err := r.ReadRange(ctx, ids[:1], 0, r.NumRows(), mem)
			require.NoError(t, err, "the undamaged column reads")
			releaseAll(good)
			for name, read := range map[string]func() error{
				"range": func() error { _, err := r.ReadRange(ctx, ids, 0, r.NumRows(), mem); return err },
				"take":  func() error { _, err := r.Take(ctx, ids, []uint64{5, 2999}, mem); return err },
			} {
				err := read()
				t.Logf("%s: %v", name, err)
				require.ErrorIs(t, err, file.ErrCorruptFile, name)
				require.ErrorContains(t, err, "f.lance", name)
				require.ErrorContains(t, err, `field "s"`, name)
				require.ErrorContains(t, err, "column 1 ", name)
			}
		})
	}
}

// damagePages overwrites every buffer of every page of column ci of the file at path with
// 0xFF bytes.
func damagePages(t *testing.T, path string, ci int) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	ft, err := file.ParseFooter(data, uint64(len(data)))
	require.NoError(t, err)
	cmo, err := file.ParseTable(data[ft.ColumnMetaOffsets:], ft.NumColumns, uint64(len(data)), "cmo")
	require.NoError(t, err)
	var cm lancepb.ColumnMetadata
	require.NoError(t, proto.Unmarshal(data[cmo[ci].Pos:cmo[ci].End()], &cm))
	damaged := 0
	for _, p := range cm.GetPages() {
		for bi, off := range p.GetBufferOffsets() {
			for i := range p.GetBufferSizes()[bi] {
				data[off+i] = 0xFF
				damaged++
			}
		}
	}
	require.Positive(t, damaged)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
