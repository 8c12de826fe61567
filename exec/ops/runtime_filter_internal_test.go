package ops

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
)

// rfColumn builds an int64 column of vals, NULL where null[i]; the NULL slots hold a junk
// value equal to a build key, so a filter ignoring validity would keep them.
func rfColumn(mem memory.Allocator, vals []int64, null []bool) arrow.Array {
	valid := make([]bool, len(vals))
	for i := range valid {
		valid[i] = !null[i]
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	out := b.NewInt64Array()
	copy(out.Int64Values(), vals) // the builder zeroes NULL slots: put the junk back
	return out
}

// TestRuntimeFilterSets: the dense, bloom and empty summaries never drop a build key, never
// keep a NULL (even over a junk value that is a build key), the dense one keeps exactly the
// build keys and the bloom one few others; every integer-like type gives the same rows as
// int64.
func TestRuntimeFilterSets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		name      string
		buildKeys int
		spread    int64 // keys are k*spread
		wantDense bool
		wantBloom bool
	}{
		{"dense", 500, 1, true, false},
		{"dense-negative", 500, -3, true, false},
		{"dense-sparse", 300, 5_001, true, false}, // ~4000 bits per key, 6M bits in all
		{"bloom", 3000, 1_000_003, false, true},
		{"bloom-negative-huge", 200, -(1 << 53), false, true},
		{"empty", 0, 1, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.buildKeys), 3))
			keys := map[int64]bool{}
			var bv []int64
			var bn []bool
			for range c.buildKeys * 2 { // duplicates
				k := int64(rng.IntN(c.buildKeys*4)) * c.spread
				null := rng.IntN(7) == 0
				if !null {
					keys[k] = true
				}
				bv, bn = append(bv, k), append(bn, null)
			}
			build := rfColumn(mem, bv, bn)
			defer build.Release()
			f := NewRuntimeFilter(0)
			require.Nil(t, f.active(), "unpublished")
			f.publish([]arrow.Array{build}, nil)
			s := f.active()
			require.NotNil(t, s)
			require.Equal(t, c.wantDense, s.dense != nil)
			require.Equal(t, c.wantBloom, s.bloom != nil)
			require.Equal(t, len(keys) == 0, s.empty)

			var pv []int64
			var pn []bool
			for i := range 20000 {
				k := int64(rng.IntN(c.buildKeys*8+10)-5) * c.spread
				null := i%5 == 0
				if null && len(bv) > 0 {
					k = bv[0] // junk under NULL
				}
				pv, pn = append(pv, k), append(pn, null)
			}
			probe := rfColumn(mem, pv, pn)
			defer probe.Release()
			sel, ok := s.selectRows(probe, nil)
			require.True(t, ok)
			kept := map[int32]bool{}
			for _, r := range sel {
				kept[r] = true
			}
			falsePos, nonKeys := 0, 0
			for i, v := range pv {
				switch {
				case pn[i]:
					require.False(t, kept[int32(i)], "NULL row %d kept", i)
				case keys[v]:
					require.True(t, kept[int32(i)], "build key %d dropped", v)
				default:
					nonKeys++
					if kept[int32(i)] {
						falsePos++
					}
				}
			}
			require.Positive(t, nonKeys)
			if s.bloom == nil {
				require.Zero(t, falsePos, "exact summary")
			} else {
				require.Less(t, float64(falsePos), 0.05*float64(nonKeys), "bloom false positives")
			}
			requireSameSelection(t, mem, s, pv, pn, sel)
		})
	}
}

// requireSameSelection checks that the int32, uint32 and date32 forms of the probe column
// select the rows the int64 form selected (values fit in int32 here or are skipped).
func requireSameSelection(t *testing.T, mem memory.Allocator, s *rfSet, pv []int64, pn []bool, want []int32) {
	for _, v := range pv {
		if v != int64(int32(v)) {
			return
		}
	}
	valid := make([]bool, len(pn))
	for i := range valid {
		valid[i] = !pn[i]
	}
	i32 := make([]int32, len(pv))
	d32 := make([]arrow.Date32, len(pv))
	for i, v := range pv {
		i32[i], d32[i] = int32(v), arrow.Date32(v)
	}
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues(i32, valid)
	db := array.NewDate32Builder(mem)
	defer db.Release()
	db.AppendValues(d32, valid)
	for _, col := range []arrow.Array{ib.NewArray(), db.NewArray()} {
		got, ok := s.selectRows(col, nil)
		col.Release()
		require.True(t, ok)
		if len(want) == 0 {
			require.Empty(t, got)
		} else {
			require.Equal(t, want, got)
		}
	}
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	fb.Append(1)
	fc := fb.NewArray()
	defer fc.Release()
	_, ok := s.selectRows(fc, nil)
	require.Equal(t, s.empty, ok, "a float column is not filtered")
}

// TestRuntimeFilterClaimAndAdapt: a filter claimed by two joins is off for good, and a
// scan's filter that keeps nearly every row turns itself off after the sample.
func TestRuntimeFilterClaimAndAdapt(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	col := rfColumn(mem, []int64{1, 2, 3}, []bool{false, false, false})
	defer col.Release()
	f := NewRuntimeFilter(0)
	f.Claim()
	f.publish([]arrow.Array{col}, nil)
	require.NotNil(t, f.active())
	f.Claim()
	require.Nil(t, f.active(), "claimed twice")

	g := NewRuntimeFilter(0)
	g.publish([]arrow.Array{col}, nil)
	tg := &rfTarget{f: g}
	tg.count(rfSampleRows/2, rfSampleRows/2)
	require.False(t, tg.off.Load(), "before the sample ends")
	tg.count(rfSampleRows/2, rfSampleRows/4)
	require.False(t, tg.off.Load(), "keeps 75%")
	tg.count(rfSampleRows*8, rfSampleRows*8)
	require.True(t, tg.off.Load(), "keeps over 90%")

	// A scan applies it: rows 1..3 kept out of 0..9, NULLs dropped, the batch owned.
	s := &Scan{env: exec.Env{Mem: mem}.WithDefaults()}
	s.AddRuntimeFilter(g, 0)
	vals := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 2}
	probe := rfColumn(mem, vals, []bool{false, false, false, false, false, false, false, false, false, true})
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBatch(sc, []arrow.Array{probe}, int64(len(vals)))
	probe.Release()
	out, err := s.applyRuntimeFilters(context.Background(), b)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []int64{1, 2, 3}, out.Column(0).(*array.Int64).Int64Values())
}

// TestRuntimeFilterReserves: a filter's bitmap is reserved from the join's reservation,
// and a pool that refuses it leaves a min/max-only filter that still drops rows outside
// the range and keeps the rest.
func TestRuntimeFilterReserves(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	col := rfColumn(mem, []int64{10, 12, 70}, []bool{false, false, false})
	defer col.Release()

	pool := exec.NewMemoryPool(0)
	res := pool.NewReservation("join")
	f := NewRuntimeFilter(0)
	f.publish([]arrow.Array{col}, res)
	s := f.active()
	require.NotNil(t, s)
	require.NotNil(t, s.dense)
	require.Equal(t, int64(8*len(s.dense)), res.Size(), "the bitmap is reserved, the key copy returned")

	tight := exec.NewMemoryPool(int64(8 * col.Len())) // room for the key copy only
	g := NewRuntimeFilter(0)
	g.publish([]arrow.Array{col}, tight.NewReservation("join"))
	s = g.active()
	require.NotNil(t, s)
	require.Nil(t, s.dense)
	require.Nil(t, s.bloom)
	require.Equal(t, [2]int64{10, 70}, [2]int64{s.min, s.max})
	require.Zero(t, tight.Used())

	// Keys whose bitmap (512 KiB) does not fit but a bloom filter (one word) does.
	wide := rfColumn(mem, []int64{0, 1 << 22}, []bool{false, false})
	defer wide.Release()
	roomy := exec.NewMemoryPool(int64(8*wide.Len()) + 8)
	b := NewRuntimeFilter(0)
	b.publish([]arrow.Array{wide}, roomy.NewReservation("join"))
	s = b.active()
	require.NotNil(t, s)
	require.Nil(t, s.dense)
	require.Len(t, s.bloom, 1, "a refused bitmap falls back to a bloom filter")

	none := NewRuntimeFilter(0)
	none.publish([]arrow.Array{col}, exec.NewMemoryPool(8).NewReservation("join"))
	require.Nil(t, none.active(), "no room for the key copy: unpublished")
}
