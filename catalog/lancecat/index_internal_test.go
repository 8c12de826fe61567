package lancecat

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/table"
)

func rr(pairs ...int64) []catalog.RowRange {
	var out []catalog.RowRange
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, catalog.RowRange{Start: pairs[i], End: pairs[i+1]})
	}
	return out
}

func TestSelectionAlgebra(t *testing.T) {
	exact := func(pairs ...int64) fragSel { return fragSel{exact: true, ranges: rr(pairs...)} }
	zones := func(pairs ...int64) fragSel { return fragSel{ranges: rr(pairs...)} }
	full := fragSel{all: true, exact: true}
	cases := []struct {
		name string
		got  fragSel
		want fragSel
	}{
		{"and ranges", andSel(exact(0, 10, 20, 30), exact(5, 25)), exact(5, 10, 20, 25)},
		{"and unknown keeps the other side, inexact", andSel(unknownSel, exact(1, 2)), zones(1, 2)},
		{"and full", andSel(full, exact(1, 2)), exact(1, 2)},
		{"and disjoint", andSel(exact(0, 5), zones(5, 9)), fragSel{}},
		{"or merges adjacent", orSel(exact(0, 5), exact(5, 9, 12, 13)), exact(0, 9, 12, 13)},
		{"or unknown", orSel(unknownSel, exact(1, 2)), unknownSel},
		{"or full", orSel(full, zones(1, 2)), full},
		{"or inexact", orSel(zones(0, 2), exact(4, 5)), zones(0, 2, 4, 5)},
		{"not ranges", notSel(exact(0, 2, 5, 6), 10), exact(2, 5, 6, 10)},
		{"not none", notSel(exact(), 10), full},
		{"not full", notSel(full, 10), exact()},
		{"not zones is unknown", notSel(zones(0, 2), 10), unknownSel},
		{"not unknown", notSel(unknownSel, 10), unknownSel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want.all, c.got.all)
			require.Equal(t, c.want.exact, c.got.exact)
			require.Len(t, c.got.ranges, len(c.want.ranges), "%v", c.got.ranges)
			for i := range c.want.ranges {
				require.Equal(t, c.want.ranges[i], c.got.ranges[i])
			}
		})
	}
}

func TestNormalizeAndOffsetRanges(t *testing.T) {
	require.Equal(t, rr(0, 3, 7, 8, 10, 12), offsetRanges([]uint32{0, 1, 2, 7, 10, 11}))
	require.Empty(t, offsetRanges(nil))
	// Clipped to the fragment, sorted, overlaps merged.
	require.Equal(t, rr(0, 4, 6, 10), normalizeRanges(rr(6, 1<<40, 2, 4, -3, 3, 50, 60), 10))
}

func TestRowPicker(t *testing.T) {
	dv := table.NewDeletionVector([]uint32{2, 3, 11})
	p := &rowPicker{ranges: rr(0, 5, 10, 13)}
	require.Equal(t, []uint64{0, 1, 4}, p.take(3, dv))
	require.Equal(t, []uint64{10, 12}, p.take(3, dv))
	require.Empty(t, p.take(3, dv))
	p = &rowPicker{ranges: rr(0, 4)}
	require.Equal(t, []uint64{0, 1}, p.take(2, nil))
	require.Equal(t, []uint64{2, 3}, p.take(5, nil))
}
