package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnalyzeReadBytes(t *testing.T) {
	cases := []struct {
		text string
		want int64
	}{
		{"Project: x  (rows=1)\n  Scan: ix version=3 filter=f  (rows=1 batches=1 time=7.1ms read=48.8 KiB)\n", 49971},
		{"  Scan: a  (rows=1 read=512 B)\n  Scan: b  (rows=2 read=1.5 MiB)\n", 512 + 1572864},
		{"  Scan: a  (rows=1 batches=1 time=1ms)\n", -1},
		{"Project: p  (rows=1 read=9 B)\n", -1},
	}
	for _, c := range cases {
		require.Equal(t, c.want, analyzeReadBytes(c.text), c.text)
	}
}

func TestIndexCases(t *testing.T) {
	cs := indexCases(10_000_000)
	require.Equal(t, "id = 7650021", cs[0].where)
	require.Equal(t, "id BETWEEN 5000000 AND 5099999", cs[1].where)
	require.Equal(t, "cat = 'c0042'", cs[2].where)
}

// sizeAllocator counts the bytes it holds through allocations, reallocations and frees.
func TestSizeAllocator(t *testing.T) {
	a := newSizeAllocator()
	b1 := a.Allocate(100)
	b2 := a.Allocate(7)
	require.Equal(t, int64(107), a.size.Load())
	b1 = a.Reallocate(300, b1)
	require.Equal(t, int64(307), a.size.Load())
	a.Free(b1)
	require.Equal(t, int64(7), a.size.Load(), "b2 is still held")
	a.Free(b2)
	require.Zero(t, a.size.Load())
}
