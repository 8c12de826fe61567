package lancecat

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
)

// newIDMap builds an idMap from per-fragment id sequences, as buildIDMap does.
func newIDMap(frags map[uint64][]uint64) *idMap {
	m := &idMap{}
	for _, f := range slices.Sorted(func(yield func(uint64) bool) {
		for k := range frags {
			if !yield(k) {
				return
			}
		}
	}) {
		m.addFragment(f, frags[f])
	}
	m.finish()
	return m
}

// Row ids map to every address holding them: runs, holes, unsorted sequences, and an id
// living in two fragments (an updated row's old and new copy).
func TestIDMap(t *testing.T) {
	m := newIDMap(map[uint64][]uint64{
		7: {0, 1, 2, 3, 10, 11, 12},     // a range with holes
		8: {100, 4, 5, 6, 9, 8},         // unsorted
		9: {50, 51, 52, 3, 53, 54, 200}, // id 3 again
	})
	cases := []struct {
		id   uint64
		want []uint64
	}{
		{0, []uint64{7<<32 | 0}},
		{3, []uint64{9<<32 | 3, 7<<32 | 3}},
		{4, []uint64{8<<32 | 1}},
		{7, nil},
		{9, []uint64{8<<32 | 4}},
		{12, []uint64{7<<32 | 6}},
		{53, []uint64{9<<32 | 4}},
		{100, []uint64{8<<32 | 0}},
		{200, []uint64{9<<32 | 6}},
		{201, nil},
	}
	for _, c := range cases {
		require.Equal(t, c.want, m.appendAddrs(nil, c.id), "id %d", c.id)
	}
	res, err := m.toAddrs(index.Result{Kind: index.Exact, Rows: index.RowSetOf(3, 9, 7, 201)})
	require.NoError(t, err)
	require.Equal(t, []uint64{7<<32 | 3, 8<<32 | 4, 9<<32 | 3}, res.Rows.Addrs())
	require.True(t, holdsRowIDs(index.RowSetOf(3, 9)))
	require.False(t, holdsRowIDs(index.RowSetOf(3, 2<<32|9)))
	full := index.NewRowSet()
	full.AddFragment(0)
	_, err = m.toAddrs(index.Result{Kind: index.Exact, Rows: full})
	require.ErrorIs(t, err, errIndexDisagrees)
}
