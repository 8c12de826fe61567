package encoding

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// TestSplitChunkReusesHeaders checks that splitChunk slices every part of a chunk right
// when it reuses the page's buffer headers from one chunk to the next, allocates nothing
// once warm, and rejects truncated chunks with ErrCorrupt.
func TestSplitChunkReusesHeaders(t *testing.T) {
	m := &MiniBlock{layout: &enc21pb.MiniBlockLayout{NumBuffers: 2}}
	chunk := func(levels int, a, b []byte) []byte {
		c := []byte{byte(levels), 0, byte(len(a)), 0, byte(len(b)), 0, 0, 0}
		c = append(c, a...)
		for len(c)%8 != 0 {
			c = append(c, 0xee)
		}
		return append(c, b...)
	}
	tests := []struct {
		name   string
		levels int
		a, b   []byte
	}{
		{"short", 3, []byte{1, 2, 3}, []byte{4, 5}},
		{"second chunk overwrites the headers", 9, []byte{6, 7, 8, 9, 10, 11, 12, 13, 14}, []byte{15}},
		{"empty buffers", 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chunk(tt.levels, tt.a, tt.b)
			cp, err := m.splitChunk(c)
			require.NoError(t, err)
			require.Equal(t, tt.levels, cp.numLevels)
			require.Len(t, cp.bufs, 2)
			require.Equal(t, string(tt.a), string(cp.bufs[0]))
			require.Equal(t, string(tt.b), string(cp.bufs[1]))
			allocs := testing.AllocsPerRun(20, func() {
				if _, err := m.splitChunk(c); err != nil {
					t.Fatal(err)
				}
			})
			require.Zero(t, allocs)
			for cut := range len(c) {
				if len(tt.b) == 0 && cut >= 8+len(tt.a) {
					continue // the cut only removes padding the empty last part does not need
				}
				_, err := m.splitChunk(c[:cut])
				require.ErrorIs(t, err, ErrCorrupt, "cut at %d", cut)
			}
		})
	}
}
