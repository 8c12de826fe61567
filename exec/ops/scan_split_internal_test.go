package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
)

// splitMorsels cuts morsels into ranges of the given rows, at most maxSplit per morsel,
// covering exactly the same rows in the same order.
func TestSplitMorsels(t *testing.T) {
	m := func(f uint64, s, e int64) catalog.Morsel { return catalog.Morsel{Fragment: f, Start: s, End: e} }
	tests := []struct {
		name string
		in   []catalog.Morsel
		rows int64
		want []catalog.Morsel
	}{
		{"exact pieces", []catalog.Morsel{m(1, 0, 8)}, 4, []catalog.Morsel{m(1, 0, 4), m(1, 4, 8)}},
		{"remainder", []catalog.Morsel{m(1, 10, 19)}, 4, []catalog.Morsel{m(1, 10, 13), m(1, 13, 16), m(1, 16, 19)}},
		{"short morsel kept", []catalog.Morsel{m(2, 5, 7), m(3, 0, 4)}, 4, []catalog.Morsel{m(2, 5, 7), m(3, 0, 4)}},
		{"empty morsel kept", []catalog.Morsel{m(2, 5, 5)}, 4, []catalog.Morsel{m(2, 5, 5)}},
		{"no size: unchanged", []catalog.Morsel{m(1, 0, 100)}, 0, []catalog.Morsel{m(1, 0, 100)}},
		{"several morsels in order", []catalog.Morsel{m(1, 0, 6), m(0, 0, 5)}, 3,
			[]catalog.Morsel{m(1, 0, 3), m(1, 3, 6), m(0, 0, 3), m(0, 3, 5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, splitMorsels(tt.in, tt.rows))
		})
	}
}

// A huge morsel (an endless source) becomes maxSplit ranges, not billions.
func TestSplitMorselsHuge(t *testing.T) {
	got := splitMorsels([]catalog.Morsel{{Fragment: 4, Start: 0, End: 1 << 40}}, 1<<16)
	require.Len(t, got, maxSplit)
	require.Equal(t, int64(0), got[0].Start)
	require.Equal(t, int64(1<<40), got[len(got)-1].End)
	for i := 1; i < len(got); i++ {
		require.Equal(t, got[i-1].End, got[i].Start)
	}
}
