package file

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// filled returns n bytes whose values depend on seed.
func filled(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func TestBlockCacheHitsAndKeys(t *testing.T) {
	c := NewBlockCache(1 << 20)
	a, b := c.fileID("s3://x/a.lance", 100), c.fileID("s3://x/b.lance", 100)
	require.NotEqual(t, a, b)
	require.Equal(t, a, c.fileID("s3://x/a.lance", 100))
	require.NotEqual(t, a, c.fileID("s3://x/a.lance", 101), "same name, other size: another file")

	data := filled(1000, 1)
	got := c.put(a, 10, data)
	require.Equal(t, data, got)
	for _, tc := range []struct {
		name    string
		id, off uint64
		n       uint64
		hit     bool
	}{
		{"same extent", a, 10, 1000, true},
		{"other file", b, 10, 1000, false},
		{"other offset", a, 11, 1000, false},
		{"other length", a, 10, 999, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := c.get(tc.id, tc.off, tc.n)
			require.Equal(t, tc.hit, ok)
			if tc.hit {
				require.Equal(t, data, got)
				require.Same(t, &data[0], &got[0], "a hit returns the cached bytes, not a copy")
			}
		})
	}
	again := c.put(a, 10, filled(1000, 9))
	require.Same(t, &data[0], &again[0], "a second put of an extent keeps the first block")
	st := c.Stats()
	require.Equal(t, int64(1), st.Hits)
	require.Equal(t, int64(3), st.Misses)
	require.Equal(t, 1, st.Blocks)
	require.Equal(t, int64(1000+blockOverhead), st.Bytes)
}

func TestBlockCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	const size, slots = 10 << 10, 8
	c := NewBlockCache(slots * (size + blockOverhead)) // room for exactly eight blocks
	id := c.fileID("f", 1<<30)
	for i := range slots {
		c.put(id, uint64(i*size), filled(size, byte(i)))
	}
	_, ok := c.get(id, 0, size) // block 0 becomes the newest
	require.True(t, ok)
	c.put(id, slots*size, filled(size, slots)) // evicts block 1, the least recently used
	for i := range slots + 1 {
		got, ok := c.get(id, uint64(i*size), size)
		require.Equal(t, i != 1, ok, "block %d", i)
		if ok {
			require.Equal(t, filled(size, byte(i)), got)
		}
	}
	st := c.Stats()
	require.Equal(t, slots, st.Blocks)
	require.Equal(t, c.budget, st.Bytes)
	// The loop above used blocks 0, 2, ..., 8 in that order: a bigger block evicts 0 and 2.
	c.put(id, 100*size, filled(size+100, 9))
	st = c.Stats()
	require.LessOrEqual(t, st.Bytes, c.budget)
	require.Equal(t, slots-1, st.Blocks)
	for i, want := range map[int]bool{0: false, 2: false, 3: true, 8: true} {
		_, ok := c.get(id, uint64(i*size), size)
		require.Equal(t, want, ok, "block %d", i)
	}
}

func TestBlockCacheBypassesLargeReads(t *testing.T) {
	c := NewBlockCache(8 << 10) // blocks up to 1 KiB
	id := c.fileID("f", 1<<20)
	for _, tc := range []struct {
		n    int
		kept bool
	}{{1024, true}, {1025, false}, {0, false}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			require.Equal(t, tc.kept, c.fits(uint64(tc.n)))
			data := filled(tc.n, 3)
			got := c.put(id, 7, data)
			require.Equal(t, data, got)
			_, ok := c.get(id, 7, uint64(tc.n))
			require.Equal(t, tc.kept, ok)
		})
	}
}

func TestBlockCacheConcurrent(t *testing.T) {
	c := NewBlockCache(64 << 10).ForceChecksums()
	id := c.fileID("f", 1<<20)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				off := uint64((i*13 + w) % 64 * 1024)
				want := filled(1024, byte(off/1024))
				if got, ok := c.get(id, off, 1024); ok {
					if !bytes.Equal(want, got) {
						panic(fmt.Sprintf("offset %d: wrong bytes", off))
					}
					continue
				}
				got := c.put(id, off, want)
				if !bytes.Equal(want, got) {
					panic(fmt.Sprintf("offset %d: wrong bytes after put", off))
				}
			}
		}()
	}
	wg.Wait()
	st := c.Stats()
	require.LessOrEqual(t, st.Bytes, c.budget)
	require.Positive(t, st.Hits)
	require.NoError(t, c.Verify())
}

func TestBlockCacheChecksumDetectsMutation(t *testing.T) {
	c := NewBlockCache(1 << 20).ForceChecksums()
	id := c.fileID("f", 1<<20)
	data := c.put(id, 0, filled(4096, 1))
	_, ok := c.get(id, 0, 4096)
	require.True(t, ok)
	require.NoError(t, c.Verify())
	data[100]++ // a decoder writing into its input
	require.ErrorIs(t, c.Verify(), errBlockMutated)
	require.PanicsWithError(t, fmt.Errorf("block cache: file %d [0, +4096): %w", id, errBlockMutated).Error(), func() {
		c.get(id, 0, 4096)
	})

	off := NewBlockCache(1 << 20) // without checksums nothing is checked
	off.checksum = false
	id = off.fileID("f", 1<<20)
	data = off.put(id, 0, filled(4096, 1))
	data[0]++
	require.NoError(t, off.Verify())
	_, ok = off.get(id, 0, 4096)
	require.True(t, ok)
}

func TestBlockCachePutCopy(t *testing.T) {
	c := NewBlockCache(1 << 20)
	id := c.fileID("f", 1<<20)
	big := filled(8192, 2)
	c.putCopy(id, 100, big[100:200])
	got, ok := c.get(id, 100, 100)
	require.True(t, ok)
	require.Equal(t, big[100:200], got)
	require.NotSame(t, &big[100], &got[0], "a copy, not a slice of the larger read")
	c.putCopy(id, 100, filled(100, 9)) // already cached: kept as is
	again, ok := c.get(id, 100, 100)
	require.True(t, ok)
	require.Same(t, &got[0], &again[0])
}
