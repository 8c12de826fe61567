package file_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
)

// TestOpenWithKeptMetadata checks that a Reader keeping its parsed chunk tables (OpenWith)
// reads the same values as a plain one through ReadRange, Cursor and Take, also from
// concurrent readers, keeps at most MetaBytes of tables (reporting each through OnMeta),
// and that a repeated read no longer fetches the tables it kept.
func TestOpenWithKeptMetadata(t *testing.T) {
	const n = 6000
	ranges := [][2]uint64{{0, n}, {17, 1500}, {1499, 4100}, {n - 3, n}, {2048, 2048}}
	var rows []uint64
	for r := uint64(3); r < n; r += 41 {
		rows = append(rows, r, r+1)
	}
	for _, v := range []file.Version{file.V2_1, file.V2_2} {
		for _, limit := range []int64{1 << 20, 200} {
			t.Run(v.String()+"/"+map[bool]string{true: "roomy", false: "tight"}[limit > 1000], func(t *testing.T) {
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				ctx := context.Background()
				store := writeTakeFile(t, v, n, 16<<10, mem)
				plain, err := file.Open(ctx, store, "t.lance")
				require.NoError(t, err)
				var reported atomic.Int64
				kept, err := file.OpenWith(ctx, store, "t.lance", file.OpenOptions{MetaBytes: limit,
					OnMeta: func(b int64) { reported.Add(b) }})
				require.NoError(t, err)
				ids := topIDs(plain)
				same := func(read func(r *file.Reader) ([]arrow.Array, error)) {
					want, err := read(plain)
					require.NoError(t, err)
					defer releaseAll(want)
					got, err := read(kept)
					require.NoError(t, err)
					defer releaseAll(got)
					require.Len(t, got, len(want))
					for c := range want {
						require.True(t, array.Equal(want[c], got[c]), "column %d", c)
					}
				}
				for _, rg := range ranges {
					same(func(r *file.Reader) ([]arrow.Array, error) { return r.ReadRange(ctx, ids, rg[0], rg[1], mem) })
				}
				same(func(r *file.Reader) ([]arrow.Array, error) { return r.Take(ctx, ids, rows, mem) })
				// A cursor walking the file in uneven steps (pages cut several times).
				cp, ck := plain.NewCursor(), kept.NewCursor()
				for start := uint64(0); start < n; start += 777 {
					end := min(start+777, n)
					same(func(r *file.Reader) ([]arrow.Array, error) {
						if r == plain {
							return cp.ReadRange(ctx, ids, start, end, mem)
						}
						return ck.ReadRange(ctx, ids, start, end, mem)
					})
				}
				require.Positive(t, kept.MetaBytes())
				require.LessOrEqual(t, kept.MetaBytes(), limit)
				require.Equal(t, kept.MetaBytes(), reported.Load(), "OnMeta saw every kept table")
				require.Zero(t, plain.MetaBytes())

				// Concurrent reads of the shared tables (run under -race).
				var g errgroup.Group
				for k := range 4 {
					g.Go(func() error {
						arrs, err := kept.ReadRange(ctx, ids, uint64(k)*1000, uint64(k)*1000+1500, mem)
						releaseAll(arrs)
						return err
					})
				}
				require.NoError(t, g.Wait())

				if limit > 1000 { // all tables kept: a repeated read fetches less than the plain one
					read := func(r *file.Reader) int64 {
						b0 := store.bytes.Load()
						arrs, err := r.ReadRange(ctx, ids, 100, 5000, mem)
						require.NoError(t, err)
						releaseAll(arrs)
						return store.bytes.Load() - b0
					}
					require.Less(t, read(kept), read(plain))
				}
			})
		}
	}
}
