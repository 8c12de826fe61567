package legacy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// fuzzSchema types the fuzzed files: x int64 (id 0), s string (id 1), l list<int32> (ids 2, 3).
func fuzzSchema(t testing.TB) *schema.Schema {
	sc, err := schema.FromProto([]*lancepb.Field{
		{Name: "x", Id: 0, ParentId: -1, LogicalType: "int64", Nullable: true},
		{Name: "s", Id: 1, ParentId: -1, LogicalType: "string", Nullable: true},
		{Name: "l", Id: 2, ParentId: -1, LogicalType: "list", Nullable: true},
		{Name: "item", Id: 3, ParentId: 2, LogicalType: "int32", Nullable: true},
	})
	require.NoError(t, err)
	return sc
}

// FuzzOpenRead opens arbitrary bytes as a v1 file and reads every row: Open and the reads
// must return errors, never panic, and must not leak Arrow memory.
func FuzzOpenRead(f *testing.F) {
	f.Add(append([]byte{9, 0, 0, 0, 0x08, 0x80, 0x01, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18},
		v1Footer(0, 0, 2, "LANC")...))
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "fixtures", "lance-test-data",
		"v0.15.0", "v1_with_files.lance", "data", "7e7057e4-81a6-41b1-a44b-5c1285b1a8f8.lance")); err == nil {
		f.Add(b)
	}
	sc := fuzzSchema(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		store, err := blobstore.Open(ctx, "mem://")
		require.NoError(t, err)
		require.NoError(t, store.Put(ctx, "f.lance", b))
		r, err := legacy.Open(ctx, store, "f.lance", sc, []int32{0, 1, 2, 3}, nil)
		if err != nil {
			return
		}
		mem := memtest.NewChecked(t)
		defer mem.AssertSize(t, 0)
		n := min(r.NumRows(), 1<<12)
		for _, id := range []int32{0, 1, 2} {
			arrs, err := r.ReadRange(ctx, []int32{id}, 0, n, mem)
			if err == nil {
				require.Equal(t, int(n), arrs[0].Len())
				arrs[0].Release()
			}
			if n > 1 {
				arrs, err = r.Take(ctx, []int32{id}, []uint64{0, n - 1}, mem)
				if err == nil {
					require.Equal(t, 2, arrs[0].Len())
					arrs[0].Release()
				}
			}
		}
	})
}
