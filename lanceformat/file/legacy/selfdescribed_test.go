package legacy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/lanceio/lanceiotest"
)

// The BTree index files of Lance 0.18 and 0.20 are v1 files that embed their schema.
func TestOpenSelfDescribedFixtures(t *testing.T) {
	root := testutil.SharedFixtures(t)
	cases := []struct {
		rel     string
		names   []string
		rows    uint64
		batches [][2]uint64
		want    map[string]string // column → its values printed
	}{
		{"v0.18.2/index_no_details.lance/_indices/f1fc279b-59f2-4617-a3e7-057af5fee009/page_lookup.lance",
			[]string{"min", "max", "null_count", "page_idx"}, 1, [][2]uint64{{0, 1}},
			map[string]string{"min": "[0]", "max": "[99]", "null_count": "[0]", "page_idx": "[0]"}},
		{"v0.20.0/old_btree_bitmap_indices.lance/_indices/e034c4d8-77cd-422c-8855-209eed8deff8/page_lookup.lance",
			[]string{"min", "max", "null_count", "page_idx"}, 1, [][2]uint64{{0, 1}},
			map[string]string{"min": "[1]", "max": "[4]", "null_count": "[0]", "page_idx": "[0]"}},
		{"v0.20.0/old_btree_bitmap_indices.lance/_indices/e034c4d8-77cd-422c-8855-209eed8deff8/page_data.lance",
			[]string{"values", "row_ids"}, 4, [][2]uint64{{0, 4}},
			map[string]string{"values": "[1 2 3 4]", "row_ids": "[0 1 2 3]"}},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			r, err := legacy.OpenSelfDescribed(ctx, lanceiotest.DirStore{Root: root}, c.rel)
			require.NoError(t, err)
			require.Equal(t, c.rows, r.NumRows())
			require.Equal(t, len(c.batches), r.NumBatches())
			for i, b := range c.batches {
				lo, hi, err := r.BatchRows(i)
				require.NoError(t, err)
				require.Equal(t, b, [2]uint64{lo, hi})
			}
			_, _, err = r.BatchRows(len(c.batches))
			require.ErrorIs(t, err, legacy.ErrCorruptFile)
			var ids []int32
			for i, f := range r.Schema().Fields {
				require.Equal(t, c.names[i], f.Name)
				ids = append(ids, f.ID)
			}
			require.Len(t, ids, len(c.names))
			arrs, err := r.ReadRange(ctx, ids, 0, r.NumRows(), mem)
			require.NoError(t, err)
			for i, a := range arrs {
				require.Equal(t, c.want[c.names[i]], a.String(), c.names[i])
				a.Release()
			}
		})
	}
	// page_data of Lance 0.18 holds 100 rows in one batch.
	r, err := legacy.OpenSelfDescribed(context.Background(), lanceiotest.DirStore{Root: root},
		"v0.18.2/index_no_details.lance/_indices/f1fc279b-59f2-4617-a3e7-057af5fee009/page_data.lance")
	require.NoError(t, err)
	require.Equal(t, uint64(100), r.NumRows())
	require.Equal(t, arrow.PrimitiveTypes.Uint64, r.Schema().Fields[1].Type)
}

// A v1 file without an embedded manifest (a dataset's data file) is not self-described.
func TestOpenSelfDescribedNoSchema(t *testing.T) {
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "mem://")
	require.NoError(t, err)
	// Metadata at 0: batch offsets [0, 3], page table at 24; no manifest position.
	meta := []byte{6, 0, 0, 0, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18}
	require.NoError(t, store.Put(ctx, "f.lance", append(meta, v1Footer(0, 0, 2, "LANC")...)))
	_, err = legacy.OpenSelfDescribed(ctx, store, "f.lance")
	require.ErrorIs(t, err, legacy.ErrCorruptFile)
	require.ErrorContains(t, err, "no embedded schema")
}

// FuzzOpenSelfDescribed opens arbitrary bytes as a self-described v1 file and reads every
// top-level column: errors, never panics, no leaked Arrow memory.
func FuzzOpenSelfDescribed(f *testing.F) {
	root := filepath.Join("..", "..", "..", "..", "shared", "fixtures", "lance-test-data")
	for _, rel := range []string{
		"v0.20.0/old_btree_bitmap_indices.lance/_indices/e034c4d8-77cd-422c-8855-209eed8deff8/page_lookup.lance",
		"v0.18.2/index_no_details.lance/_indices/f1fc279b-59f2-4617-a3e7-057af5fee009/page_data.lance",
	} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
			f.Add(b)
		}
	}
	f.Add(append([]byte{6, 0, 0, 0, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18}, v1Footer(0, 0, 2, "LANC")...))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		store, err := blobstore.Open(ctx, "mem://")
		require.NoError(t, err)
		require.NoError(t, store.Put(ctx, "f.lance", b))
		r, err := legacy.OpenSelfDescribed(ctx, store, "f.lance")
		if err != nil {
			return
		}
		mem := memtest.NewChecked(t)
		defer mem.AssertSize(t, 0)
		n := min(r.NumRows(), 1<<12)
		for _, fld := range r.Schema().Fields {
			arrs, err := r.ReadRange(ctx, []int32{fld.ID}, 0, n, mem)
			if err == nil {
				require.Equal(t, int(n), arrs[0].Len())
				arrs[0].Release()
			}
		}
		for i := range r.NumBatches() {
			lo, hi, err := r.BatchRows(i)
			require.NoError(t, err)
			require.LessOrEqual(t, lo, hi)
		}
	})
}
