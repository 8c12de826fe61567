package lancecat

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/table"
)

// An index scan's morsels span only selected rows, pickedMorselRows of them each, or an
// eighth of the fragment's selection when that is more.
func TestSelectedMorsels(t *testing.T) {
	const k = pickedMorselRows
	rr := func(s, e int64) catalog.RowRange { return catalog.RowRange{Start: s, End: e} }
	m := func(s, e int64) catalog.Morsel { return catalog.Morsel{Fragment: 7, Start: s, End: e} }
	cases := []struct {
		name string
		in   []catalog.RowRange
		want []catalog.Morsel
	}{
		{"none", nil, nil},
		{"one row", []catalog.RowRange{rr(5, 6)}, []catalog.Morsel{m(5, 6)}},
		{"scattered rows in one morsel", []catalog.RowRange{rr(5, 6), rr(900, 901), rr(70000, 70001)},
			[]catalog.Morsel{m(5, 70001)}},
		{"a long range is cut at aligned rows", []catalog.RowRange{rr(100, 100+3*k+3)},
			[]catalog.Morsel{m(100, k), m(k, 2*k), m(2*k, 100+3*k+3)}},
		{"an unaligned cut moves back", []catalog.RowRange{rr(5000, 5000+3*k)},
			[]catalog.Morsel{m(5000, 5*morselAlign), m(5*morselAlign, 5*morselAlign+k),
				m(5*morselAlign+k, 5000+3*k)}},
		{"a last morsel of a few rows joins the one before", []catalog.RowRange{rr(0, k+morselAlign)},
			[]catalog.Morsel{m(0, k+morselAlign)}},
		{"cut inside the second range", []catalog.RowRange{rr(0, k-2), rr(k+10, k+morselAlign+20)},
			[]catalog.Morsel{m(0, k+12), m(k+12, k+morselAlign+20)}},
		{"exactly full", []catalog.RowRange{rr(0, k-1), rr(k+5, k+6)}, []catalog.Morsel{m(0, k+6)}},
		{"a large selection is cut in maxPickedMorsels", []catalog.RowRange{rr(0, 20*k)},
			[]catalog.Morsel{m(0, 5*k/2), m(5*k/2, 5*k), m(5*k, 15*k/2), m(15*k/2, 10*k),
				m(10*k, 25*k/2), m(25*k/2, 15*k), m(15*k, 35*k/2), m(35*k/2, 20*k)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := selectedMorsels(7, c.in)
			require.Equal(t, c.want, got)
			var n int64
			for _, r := range c.in {
				n += r.End - r.Start
			}
			var covered int64
			for _, mo := range got {
				for _, r := range c.in {
					covered += max(0, min(r.End, mo.End)-max(r.Start, mo.Start))
				}
			}
			require.Equal(t, n, covered, "every selected row in exactly one morsel")
		})
	}
}

// On random selections, morsels are ascending and disjoint, hold every selected row once,
// and none but the last is short of its share by morselAlign rows or more.
func TestSelectedMorselsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for iter := range 200 {
		var rs []catalog.RowRange
		var total int64
		for at := rng.Int64N(5000); len(rs) < 1+rng.IntN(20); {
			n := 1 + rng.Int64N([]int64{10, 5000, 200000}[rng.IntN(3)])
			rs = append(rs, catalog.RowRange{Start: at, End: at + n})
			total += n
			at += n + 1 + rng.Int64N(20000)
		}
		size := max(pickedMorselRows, (total+maxPickedMorsels-1)/maxPickedMorsels)
		got := selectedMorsels(7, rs)
		var covered int64
		for i, mo := range got {
			require.Less(t, mo.Start, mo.End, "iter %d morsel %d", iter, i)
			if i > 0 {
				require.LessOrEqual(t, got[i-1].End, mo.Start, "iter %d morsel %d", iter, i)
			}
			var in int64
			for _, r := range rs {
				in += max(0, min(r.End, mo.End)-max(r.Start, mo.Start))
			}
			if i < len(got)-1 {
				require.Greater(t, in, size-morselAlign, "iter %d morsel %d", iter, i)
			}
			require.LessOrEqual(t, in, size+morselAlign, "iter %d morsel %d", iter, i)
			covered += in
		}
		require.Equal(t, total, covered, "iter %d", iter)
	}
}

// pickRows' window of a morsel holds exactly the selected rows inside it.
func TestRowPickerWindow(t *testing.T) {
	rs := []catalog.RowRange{{Start: 0, End: 3}, {Start: 10, End: 20}, {Start: 40, End: 41}}
	cases := []struct {
		start, end int64
		want       []uint64
	}{
		{0, 41, []uint64{0, 1, 2, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 40}},
		{2, 12, []uint64{2, 10, 11}},
		{19, 40, []uint64{19}},
		{20, 40, nil},
		{40, 100, []uint64{40}},
	}
	for _, c := range cases {
		p := &rowPicker{ranges: windowRanges(rs, catalog.Morsel{Start: c.start, End: c.end})}
		require.Equal(t, c.want, p.take(100, nil), "morsel [%d,%d)", c.start, c.end)
	}
}

// nextBatch (spans without listing rows where it can) returns the batches take alone
// returns, on random selections with and without deleted rows, at several batch sizes.
func TestRowPickerNextBatchMatchesTake(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for iter := range 300 {
		var rs []catalog.RowRange
		for at := int64(rng.IntN(50)); at < 3000 && len(rs) < 1+iter%12; {
			n := int64(1 + rng.IntN(700))
			rs = append(rs, catalog.RowRange{Start: at, End: at + n})
			at += n + int64(1+rng.IntN(200)) // a gap: ranges are disjoint and not adjacent
		}
		var dv *table.DeletionVector
		if iter%3 > 0 {
			var del []uint32
			for o := uint32(rng.IntN(40)); o < 4000; o += uint32(1 + rng.IntN(60*(iter%3))) {
				del = append(del, o)
			}
			dv = table.NewDeletionVector(del)
		}
		for _, limit := range []int{1, 7, 64, 500, 16384} {
			fast, slow := &rowPicker{ranges: rs}, &rowPicker{ranges: rs}
			for {
				start, end, list, n := fast.nextBatch(limit, dv)
				want := slow.take(limit, dv)
				if n == 0 {
					require.Empty(t, want, "iter %d limit %d", iter, limit)
					break
				}
				got := list
				if got == nil {
					for r := start; r < end; r++ {
						got = append(got, r)
					}
				}
				require.Equal(t, want, got, "iter %d limit %d", iter, limit)
				require.Len(t, got, n)
				require.Equal(t, start, got[0])
				require.Equal(t, end, got[len(got)-1]+1)
			}
		}
	}
}
