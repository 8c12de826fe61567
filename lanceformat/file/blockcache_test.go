package file_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
)

// TestReadPylanceFilesCached reads every pylance-written file through a block cache: a full
// read, then as TestReadPylanceFiles does without one (full reads, sub-ranges, takes,
// cursors: hits of the full read's blocks and misses of other extents), with
// checksums on: the values must match pylance's on both passes, no decoder may have
// written into cached page bytes, and with a cache large enough for the file the second
// full read must come from memory (0 store bytes). A tiny cache (most reads bypass it or
// evict each other) must give the same values in its full reads.
func TestReadPylanceFilesCached(t *testing.T) {
	t.Parallel()
	for _, c := range generated(t) {
		t.Run(c.Name+"/"+c.Version, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name   string
				budget int64
			}{{"large", 64 << 20}, {"tiny", 32 << 10}} {
				t.Run(tc.name, func(t *testing.T) {
					mem := memtest.NewChecked(t)
					defer mem.AssertSize(t, 0)
					ctx := context.Background()
					bc := file.NewBlockCache(tc.budget).ForceChecksums()
					r, err := file.OpenWith(ctx, dirStore{c.Dir}, c.DataFile, file.OpenOptions{Blocks: bc, FileID: c.Dir + "/" + c.DataFile})
					require.NoError(t, err)
					sc, want := readExpected(t, c.Expected, mem)
					defer releaseAll(want)
					ids := make([]int32, len(r.Schema().Fields))
					for i, f := range r.Schema().Fields {
						ids[i] = f.ID
					}
					var firstRead int64
					for pass := range 2 {
						for i, f := range r.Schema().Fields {
							require.Equal(t, sc.Field(i).Name, f.Name)
							// After a full read filled the cache; 2.0 files read whole pages in
							// every kind of call, which the full reads check (time).
							if pass == 1 && tc.budget > 1<<20 && c.Version != "2.0" {
								checkField(t, ctx, r, f.ID, want[i], mem)
							}
						}
						var n atomic.Int64
						got, err := r.ReadRange(file.WithReadCounter(ctx, &n), ids, 0, r.NumRows(), mem)
						require.NoError(t, err)
						for i := range got {
							requireEqualArrays(t, want[i], got[i])
						}
						releaseAll(got)
						require.NoError(t, bc.Verify(), "pass %d", pass)
						if pass == 0 {
							firstRead = n.Load()
						} else if tc.budget > 1<<20 {
							require.Zero(t, n.Load(), "second full read of a cached file reads the store")
						}
					}
					st := bc.Stats()
					require.LessOrEqual(t, st.Bytes, tc.budget)
					if tc.budget > 1<<20 && firstRead > 0 {
						require.Positive(t, st.Hits)
					}
				})
			}
		})
	}
}
