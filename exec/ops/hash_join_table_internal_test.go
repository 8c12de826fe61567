package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGrowSize: a partition grows at least twofold, straight to the size its distinct
// hashes extrapolate to, and never past twice the rows.
func TestGrowSize(t *testing.T) {
	cases := []struct {
		name                   string
		used, seen, rows, size int
		want                   int
	}{
		{"unique keys, 1/8 seen", 511, 512, 4096, 1024, 8192},
		{"four rows per key", 511, 2048, 8192, 1024, 4096},
		{"all seen: double", 511, 1024, 1024, 1024, 2048},
		{"many repeats: double", 511, 100000, 200000, 1024, 2048},
		{"capped by rows", 1000, 1000, 1500, 2048, 4096},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, growSize(c.used, c.seen, c.rows, c.size))
		})
	}
}

// TestFlatPartInsertAll: whatever the growth path (unique keys, repeated keys, keys that
// become distinct late, several partitions), every row lands on its hash's chain exactly
// once and the table stays at most half full.
func TestFlatPartInsertAll(t *testing.T) {
	cases := []struct {
		name  string
		rows  int
		keyOf func(i int, rng *rand.Rand) int64
		pbits uint
	}{
		{"unique", 20000, func(i int, _ *rand.Rand) int64 { return int64(i) * 7 }, 0},
		{"unique-2-parts", 20000, func(i int, _ *rand.Rand) int64 { return int64(i) * 7 }, 1},
		{"repeats", 20000, func(_ int, rng *rand.Rand) int64 { return rng.Int64N(3000) }, 0},
		{"late-distinct", 20000, func(i int, _ *rand.Rand) int64 {
			if i < 10000 {
				return int64(i % 10)
			}
			return int64(i)
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.rows), 11))
			keys := make([]int64, c.rows)
			want := map[uint64][]int32{}
			for i := range keys {
				keys[i] = c.keyOf(i, rng)
			}
			hashes := make([]uint64, c.rows)
			hashKeys([][]int64{keys}, hashes)
			isNull := make([]bool, c.rows)
			for i := range isNull {
				isNull[i] = rng.IntN(13) == 0
				if !isNull[i] {
					want[hashes[i]] = append(want[hashes[i]], int32(i))
				}
			}
			next := make([]int32, c.rows)
			parts := make([]flatPart, 1<<c.pbits)
			for p := range parts {
				parts[p].insertAll(hashes, next, isNull, c.pbits, uint64(p))
			}
			ix := &flatIndex{parts: parts, pbits: c.pbits}
			used := 0
			for _, p := range parts {
				require.LessOrEqual(t, 2*p.used, len(p.hashes))
				used += p.used
			}
			require.Equal(t, len(want), used)
			for h, rows := range want {
				var got []int32
				for r := ix.lookup(h); r >= 0; r = next[r] {
					got = append(got, r)
				}
				require.Len(t, got, len(rows))
				require.ElementsMatch(t, rows, got)
			}
		})
	}
}
