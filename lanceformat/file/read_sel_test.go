package file_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
)

// TestCursorReadSel checks Cursor.ReadSel against ReadRange of the same range followed by
// a take of the selected rows, on random files of every version (every leaf type, nested
// types, dictionaries, FSST and general compression, small pages), for windows of 1, 7,
// 300 rows and the whole file (the first 40 windows of each), and selections of no row, one row, 1%, 50% and every row.
func TestCursorReadSel(t *testing.T) {
	type gen func(t *testing.T, dir string, seed uint64, v file.Version, mem memory.Allocator) writerCase
	gens := map[string]gen{"plain": writeRandomFile, "features": writeRandomFeatureFile}
	for gname, g := range gens {
		for _, v := range writerVersions {
			for seed := uint64(1); seed <= 4; seed++ {
				t.Run(fmt.Sprintf("%s/%s/%d", gname, v, seed), func(t *testing.T) {
					mem := memtest.NewChecked(t)
					defer mem.AssertSize(t, 0)
					dir := t.TempDir()
					c := g(t, dir, seed, v, mem)
					checkReadSel(t, osStore{dir}, filepath.Base(c.Name)+".lance", seed, mem)
				})
			}
		}
	}
}

func checkReadSel(t *testing.T, store osStore, path string, seed uint64, mem memory.Allocator) {
	ctx := context.Background()
	r, err := file.Open(ctx, store, path)
	require.NoError(t, err)
	ids := make([]int32, len(r.Schema().Fields))
	for i, f := range r.Schema().Fields {
		ids[i] = f.ID
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	n := r.NumRows()
	for _, window := range []uint64{1, 7, 300, n} {
		for _, density := range []float64{0, -1, 0.01, 0.5, 1} {
			cur := r.NewCursor()
			for start, k := uint64(0), 0; start < n && k < 40; start, k = start+window, k+1 {
				end := min(start+window, n)
				sel := pickRows(rng, start, end, density)
				got, err := cur.ReadSel(ctx, ids, start, end, sel, mem)
				require.NoError(t, err)
				full, err := r.ReadRange(ctx, ids, start, end, mem)
				require.NoError(t, err)
				for i := range ids {
					if !file.SelSupported(r.Schema().Fields[i].Type) {
						continue
					}
					want := takeRows(t, full[i], sel, start, mem)
					requireSameArray(t, want, got[i], "field %d rows [%d,%d) density %v", ids[i], start, end, density)
					want.Release()
				}
				releaseAll(got)
				releaseAll(full)
			}
		}
	}
}

// pickRows draws ascending rows of [start, end): each with probability density; density
// -1 picks one row.
func pickRows(rng *rand.Rand, start, end uint64, density float64) []uint64 {
	if density < 0 {
		return []uint64{start + rng.Uint64N(end-start)}
	}
	var out []uint64
	for row := start; row < end; row++ {
		if density >= 1 || rng.Float64() < density {
			out = append(out, row)
		}
	}
	return out
}

// takeRows returns a's slots at rows (relative to first), by concatenating slices.
func takeRows(t *testing.T, a arrow.Array, rows []uint64, first uint64, mem memory.Allocator) arrow.Array {
	if len(rows) == 0 {
		return array.NewSlice(a, 0, 0)
	}
	var parts []arrow.Array
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		parts = append(parts, array.NewSlice(a, int64(rows[i]-first), int64(rows[j-1]+1-first)))
		i = j
	}
	out, err := array.Concatenate(parts, mem)
	require.NoError(t, err)
	releaseAll(parts)
	return out
}

// requireSameArray compares arrays by value (slots under null parents may differ, so a
// mismatch falls back to the JSON renderings, which show those slots as null).
func requireSameArray(t *testing.T, want, got arrow.Array, msg string, args ...any) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len(), append([]any{msg}, args...)...)
	require.True(t, arrow.TypeEqual(want.DataType(), got.DataType()), append([]any{msg}, args...)...)
	if array.Equal(want, got) {
		return
	}
	wj, err := want.MarshalJSON()
	require.NoError(t, err)
	gj, err := got.MarshalJSON()
	require.NoError(t, err)
	require.JSONEq(t, string(wj), string(gj), append([]any{msg}, args...)...)
}
