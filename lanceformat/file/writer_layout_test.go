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

// TestWriterLayoutInvariants checks the byte-level rules of §5.1/§5.8 on multi-page files:
// 64-byte aligned page buffers and schema, the schema before the column metadata, page
// lengths adding up per column, and 2.1+ page priorities equal to the first row of the page.
func TestWriterLayoutInvariants(t *testing.T) {
	for _, v := range writerVersions {
		t.Run(v.String(), func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(7, uint64(v)))
			gens := []*genField{
				{name: "i", typ: arrow.PrimitiveTypes.Int32, nulls: nullsSome, smallInt: true},
				{name: "s", typ: arrow.BinaryTypes.String, nulls: nullsSome, strMode: 1},
			}
			afs := []arrow.Field{{Name: "i", Type: gens[0].typ, Nullable: true}, {Name: "s", Type: gens[1].typ, Nullable: true}}
			asc := arrow.NewSchema(afs, nil)
			sc, err := schema.FromArrow(asc, 0)
			require.NoError(t, err)
			dir := t.TempDir()
			w, err := file.NewWriter(ctx, osStore{dir}, "f.lance", sc, v, file.WithPageBytes(8<<10), file.WithAllocator(mem))
			require.NoError(t, err)
			for range 5 {
				b := genBatch(rng, mem, asc, gens, 1000)
				require.NoError(t, w.Write(ctx, b))
				b.Release()
			}
			info, err := w.Close(ctx)
			require.NoError(t, err)

			data, err := os.ReadFile(filepath.Join(dir, "f.lance"))
			require.NoError(t, err)
			ft, err := file.ParseFooter(data, uint64(len(data)))
			require.NoError(t, err)
			wantMajor, wantMinor := uint16(2), uint16(info.Minor)
			if v == file.V2_0 {
				wantMajor, wantMinor = 0, 3
			}
			require.Equal(t, [2]uint16{wantMajor, wantMinor}, [2]uint16{ft.Major, ft.Minor})
			gbo, err := file.ParseTable(data[ft.GlobalBufOffsets:], ft.NumGlobalBuffers, uint64(len(data)), "gbo")
			require.NoError(t, err)
			require.Zero(t, gbo[0].Pos%64, "schema buffer alignment")
			require.LessOrEqual(t, gbo[0].End(), ft.ColumnMetaStart)
			cmo, err := file.ParseTable(data[ft.ColumnMetaOffsets:], ft.NumColumns, uint64(len(data)), "cmo")
			require.NoError(t, err)
			require.Len(t, cmo, 2)
			for ci, e := range cmo {
				var cm lancepb.ColumnMetadata
				require.NoError(t, proto.Unmarshal(data[e.Pos:e.End()], &cm))
				require.Greater(t, len(cm.GetPages()), 1, "column %d should have several pages", ci)
				var rows uint64
				for pi, p := range cm.GetPages() {
					for bi, off := range p.GetBufferOffsets() {
						require.Zero(t, off%64, "column %d page %d buffer %d at %d", ci, pi, bi, off)
						require.LessOrEqual(t, off+p.GetBufferSizes()[bi], gbo[0].Pos)
					}
					want := rows
					if v == file.V2_0 {
						want = 0
					}
					require.Equal(t, want, p.GetPriority(), "column %d page %d priority", ci, pi)
					rows += p.GetLength()
				}
				require.Equal(t, uint64(5000), rows)
			}
		})
	}
}
