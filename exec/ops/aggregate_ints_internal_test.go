package ops

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestIntGroupsKeys: every key of two columns — values and NULLs in each (a NULL stored as
// 0) — gets its own dense group, through several rehashes, and finds it again afterwards.
func TestIntGroupsKeys(t *testing.T) {
	tab := newIntGroups([]arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32}, nil)
	require.NotNil(t, tab)
	type key struct {
		k0, k1 int64
		nb     uint8
	}
	var keys []key
	for a := int64(-20); a <= 20; a++ {
		for b := int64(-20); b <= 20; b++ {
			keys = append(keys, key{a, b, 0})
		}
		keys = append(keys, key{a, 0, 2}, key{0, a, 1})
	}
	keys = append(keys, key{0, 0, 3})
	for pass := range 2 {
		for i, k := range keys {
			g, added, err := tab.findOrAdd(k.k0, k.k1, k.nb)
			require.NoError(t, err)
			require.Equal(t, pass == 0, added, "%+v", k)
			require.Equal(t, int32(i), g, "%+v", k)
		}
	}
	require.Len(t, tab.k0, len(keys))
	require.Equal(t, 4096, len(tab.slots))
}

// TestNewIntGroups: only one to four integer-like key columns get a table; three or more take
// the wide path.
func TestNewIntGroups(t *testing.T) {
	i64, s := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	for _, c := range []struct {
		types []arrow.DataType
		want  bool
	}{
		{[]arrow.DataType{i64}, true},
		{[]arrow.DataType{arrow.PrimitiveTypes.Uint8, arrow.FixedWidthTypes.Date32}, true},
		{nil, false},
		{[]arrow.DataType{i64, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int32}, true},
		{[]arrow.DataType{i64, i64, i64, arrow.PrimitiveTypes.Uint16}, true},
		{[]arrow.DataType{i64, i64, i64, i64, i64}, false},
		{[]arrow.DataType{i64, i64, s}, false},
		{[]arrow.DataType{i64, s}, false},
		{[]arrow.DataType{arrow.PrimitiveTypes.Float64}, false},
	} {
		tab := newIntGroups(c.types, nil)
		require.Equal(t, c.want, tab != nil, "%v", c.types)
		if tab != nil {
			require.Equal(t, len(c.types) > 2, tab.wide(), "%v", c.types)
		}
	}
}

// TestIntGroupsProbeCompare: a key probing a slot that holds another key — differing only in
// its first value, its second value, or its NULL bits — does not take that key's group.
func TestIntGroupsProbeCompare(t *testing.T) {
	for _, c := range []struct{ k0, k1 int64 }{{5, 0}, {0, 5}, {0, 0}} {
		for _, nb := range []uint8{0, 1, 2} {
			if c == (struct{ k0, k1 int64 }{0, 0}) && nb == 0 {
				continue // the stored key itself
			}
			tab := newIntGroups([]arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}, nil)
			_, _, err := tab.findOrAdd(0, 0, 0)
			require.NoError(t, err)
			clear(tab.slots)
			tab.slots[tab.hash(c.k0, c.k1, nb)>>tab.shift] = 1 // group 0 sits in the probe's home
			g, added, err := tab.findOrAdd(c.k0, c.k1, nb)
			require.NoError(t, err)
			require.True(t, added, "%+v nb=%d", c, nb)
			require.Equal(t, int32(1), g)
		}
	}
}

// TestIntGroupsJunkUnderNulls: NULL keys with different values under them are one group,
// apart from the key 0, in one column and in either of two.
func TestIntGroupsJunkUnderNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	bld.AppendValues([]int64{5, 6, 0, 7, 5}, []bool{false, false, true, false, true})
	a := bld.NewArray()
	defer a.Release()
	bld.AppendValues([]int64{1, 2, 3, 4, 5}, nil)
	b := bld.NewArray()
	defer b.Release()
	bld.AppendValues([]int64{9, 9, 9, 9, 9}, nil)
	c9 := bld.NewArray()
	defer c9.Release()
	for _, c := range []struct {
		cols []arrow.Array
		want []int32
	}{
		{[]arrow.Array{a}, []int32{0, 0, 1, 0, 2}},
		{[]arrow.Array{a, c9, a}, []int32{0, 0, 1, 0, 2}},
		{[]arrow.Array{b, a}, []int32{0, 1, 2, 3, 4}},
		{[]arrow.Array{a, a}, []int32{0, 0, 1, 0, 2}},
		{[]arrow.Array{b, b, a}, []int32{0, 1, 2, 3, 4}},
		{[]arrow.Array{a, a, a, a}, []int32{0, 0, 1, 0, 2}},
		{[]arrow.Array{a, b, a, a}, []int32{0, 1, 2, 3, 4}},
	} {
		types := make([]arrow.DataType, len(c.cols))
		for i, col := range c.cols {
			types[i] = col.DataType()
		}
		tab := newIntGroups(types, nil)
		groups := make([]int32, a.Len())
		first, err := tab.assign(c.cols, groups, nil, nil)
		require.NoError(t, err)
		require.Equal(t, c.want, groups)
		require.Len(t, first, int(c.want[len(c.want)-1])+1)
	}
}

// TestIntGroupsWideKeys: every key of three and four columns — values and NULLs in each
// column (a NULL stored as 0) — gets its own dense group, through several rehashes, and finds
// it again afterwards.
func TestIntGroupsWideKeys(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	for _, n := range []int{3, 4} {
		types := []arrow.DataType{i64, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int32, i64}[:n]
		tab := newIntGroups(types, nil)
		require.True(t, tab.wide())
		type key struct {
			k  wideKey
			nb uint8
		}
		var keys []key
		for a := int64(-4); a <= 4; a++ {
			for b := int64(-4); b <= 4; b++ {
				for c := int64(-4); c <= 4; c++ {
					keys = append(keys, key{wideKey{a, b, c, int64(n) * c}, 0})
				}
			}
		}
		for nb := uint8(1); nb < 1<<n; nb++ { // each NULL pattern, with values in the others
			for v := int64(-3); v <= 3; v++ {
				var k wideKey
				for c := range n {
					if nb&(1<<c) == 0 {
						k[c] = v + int64(c)
					}
				}
				if nb != 1<<n-1 || v == 0 { // all NULL: one key
					keys = append(keys, key{k, nb})
				}
			}
		}
		if n == 3 { // column 3 does not exist: its value is 0
			for i := range keys {
				keys[i].k[3] = 0
			}
		}
		for pass := range 2 {
			for i, k := range keys {
				g, added, err := tab.findOrAddWide(&k.k, k.nb)
				require.NoError(t, err)
				require.Equal(t, pass == 0, added, "%+v", k)
				require.Equal(t, int32(i), g, "%+v", k)
				require.Equal(t, k.k, tab.keyWide(i))
				require.Equal(t, k.nb, tab.nulls[i])
			}
		}
		require.Len(t, tab.k0, len(keys))
		require.GreaterOrEqual(t, len(tab.slots), 2*len(keys))
	}
}

// TestIntGroupsWideProbeCompare: a wide key probing a slot that holds another key — differing
// only in one column's value or in its NULL bits — does not take that key's group.
func TestIntGroupsWideProbeCompare(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	for _, n := range []int{3, 4} {
		var probes []wideKey
		for c := range n {
			var k wideKey
			k[c] = 5
			probes = append(probes, k)
		}
		for _, k := range append(probes, wideKey{}) {
			for _, nb := range []uint8{0, 1, 4, 1 << (n - 1)} {
				if k == (wideKey{}) && nb == 0 {
					continue // the stored key itself
				}
				tab := newIntGroups([]arrow.DataType{i64, i64, i64, i64}[:n], nil)
				var zero wideKey
				_, _, err := tab.findOrAddWide(&zero, 0)
				require.NoError(t, err)
				clear(tab.slots)
				tab.slots[tab.hashWide(&k, nb)>>tab.shift] = 1 // group 0 sits in the probe's home
				g, added, err := tab.findOrAddWide(&k, nb)
				require.NoError(t, err)
				require.True(t, added, "%v nb=%d", k, nb)
				require.Equal(t, int32(1), g)
			}
		}
	}
}
