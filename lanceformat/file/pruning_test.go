package file_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
)

// countingStore counts the bytes read through it.
type countingStore struct {
	dirStore
	n atomic.Int64
}

func (s *countingStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	s.n.Add(n)
	return s.dirStore.ReadRange(ctx, path, off, n)
}

// TestReadsOnlyWhatIsNeeded checks that a one-row read touches only the metadata and the
// pages (for 2.1+: the chunks) holding that row of the requested column.
func TestReadsOnlyWhatIsNeeded(t *testing.T) {
	for _, c := range generated(t) {
		if c.Name != "pages" {
			continue
		}
		t.Run(c.Version, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			st := &countingStore{dirStore: dirStore{c.Dir}}
			r, err := file.Open(ctx, st, c.DataFile)
			require.NoError(t, err)
			opened := st.n.Load()
			size := fileSize(t, c)
			require.Less(t, opened, int64(70<<10), "Open reads the tail only")

			id := r.Schema().Fields[0].ID // "r": 150k random int64s, ~1.2 MB
			arrs, err := r.ReadRange(ctx, []int32{id}, 100_000, 100_001, mem)
			require.NoError(t, err)
			releaseAll(arrs)
			read := st.n.Load() - opened
			limit := int64(64 << 10) // 2.1+: one chunk plus the chunk metadata
			if c.Version == "2.0" {
				limit = size / 2 // one 2.0 page holds the whole column
			}
			require.Less(t, read, limit, "bytes read for one row of a %d-byte file", size)
		})
	}
}

// TestFullZipReadsOnlyTheRow checks that one row of a full-zip column (wide vectors, long
// strings) is read without the rest of the page.
func TestFullZipReadsOnlyTheRow(t *testing.T) {
	for _, c := range generated(t) {
		if c.Name != "main" || c.Version == "2.0" {
			continue
		}
		for _, name := range []string{"vec_wide", "vec_wide_nulls", "s_long"} {
			t.Run(c.Version+"/"+name, func(t *testing.T) {
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				ctx := context.Background()
				st := &countingStore{dirStore: dirStore{c.Dir}}
				r, err := file.Open(ctx, st, c.DataFile)
				require.NoError(t, err)
				var id int32 = -1
				for _, f := range r.Schema().Fields {
					if f.Name == name {
						id = f.ID
					}
				}
				require.NotEqual(t, int32(-1), id)
				before := st.n.Load()
				arrs, err := r.Take(ctx, []int32{id}, []uint64{10, 4000}, mem)
				require.NoError(t, err)
				require.Equal(t, 2, arrs[0].Len())
				releaseAll(arrs)
				require.Less(t, st.n.Load()-before, int64(4<<10), "bytes read for two rows")
			})
		}
	}
}
