package compress

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFSSTCache checks that ParseFSSTSymbolTable's cache returns the table a blob parses
// to: the same table for the same content, another for other content, unaffected by the
// caller reusing its buffer, never caching errors, and bounded.
func TestFSSTCache(t *testing.T) {
	for _, tc := range []struct {
		name string
		syms []string
		in   string
		want string
	}{
		{"short symbols", []string{"th", "e ", "x"}, "\x00\x01\x02", "the x"},
		{"long symbols", []string{"abcdefgh", "lance", "q"}, "\x01\x00\xff!\x02", "lanceabcdefgh!q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blob, err := (&FSSTTable{EncoderSwitch: true, Symbols: strs(tc.syms...)}).Marshal()
			require.NoError(t, err)
			a, err := ParseFSSTSymbolTable(blob)
			require.NoError(t, err)
			b, err := ParseFSSTSymbolTable(append([]byte(nil), blob...))
			require.NoError(t, err)
			require.Same(t, a, b, "same content, same table")
			// The caller reuses its buffer for another table: the cached one is unchanged.
			other, err := (&FSSTTable{EncoderSwitch: true, Symbols: strs("zz", "y")}).Marshal()
			require.NoError(t, err)
			copy(blob, other)
			got, err := a.Decompress(nil, []byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			c, err := ParseFSSTSymbolTable(blob)
			require.NoError(t, err)
			require.NotSame(t, a, c)
			got, err = c.Decompress(nil, []byte{0, 1})
			require.NoError(t, err)
			require.Equal(t, "zzy", string(got))
			// Corrupt blobs fail every time.
			bad := append([]byte(nil), blob...)
			bad[7] = 0
			for range 2 {
				_, err = ParseFSSTSymbolTable(bad)
				require.ErrorIs(t, err, ErrCorrupt)
			}
		})
	}
}

// TestFSSTCacheBounded checks that the cache stays within fsstCacheCap tables and that
// tables parsed after it was emptied are still right, from several goroutines at once.
func TestFSSTCacheBounded(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range fsstCacheCap {
				sym := fmt.Sprintf("%d-%d", g, i)
				blob, err := (&FSSTTable{EncoderSwitch: true, Symbols: strs(sym)}).Marshal()
				if err == nil {
					var tab *FSSTTable
					if tab, err = ParseFSSTSymbolTable(blob); err == nil {
						var got []byte
						if got, err = tab.Decompress(nil, []byte{0}); err == nil && string(got) != sym {
							err = fmt.Errorf("decoded %q, want %q", got, sym)
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	fsstTables.mu.RLock()
	defer fsstTables.mu.RUnlock()
	require.LessOrEqual(t, len(fsstTables.m), fsstCacheCap)
	require.NotEmpty(t, fsstTables.m)
}
