package ops

import "math/bits"

// The wide path of intGroups (aggregate_ints.go): three to maxIntKeys integer-like key
// columns. A key travels as a [maxIntKeys]int64 (columns past the table's count are 0) with
// its NULL bits; columns 0 and 1 live in k0 and k1 as on the narrow path, the others in kx.
// The one- and two-column paths do not go through here, so they pay nothing for it.

// wideKey is the values of one key of the wide path.
type wideKey = [maxIntKeys]int64

// assignWide is assign for three or more key columns, the batch already loaded.
func (t *intGroups) assignWide(groups []int32, include []bool, firstRows []int32) ([]int32, error) {
	n := len(t.types)
	var k, pk wideKey
	var pnb uint8
	prev := int32(-1)
	for r, k0 := range t.v0 {
		if include != nil && !include[r] {
			continue
		}
		k[0], k[1] = k0, t.v1[r]
		for c := 2; c < n; c++ {
			k[c] = t.vx[c-2][r]
		}
		nb := t.nb[r]
		if prev >= 0 && k == pk && nb == pnb { // runs of one key: no lookup
			groups[r] = prev
			continue
		}
		g, added, err := t.findOrAddWide(&k, nb)
		if err != nil {
			return firstRows, err
		}
		if added {
			firstRows = append(firstRows, int32(r))
		}
		groups[r], prev, pk, pnb = g, g, k, nb
	}
	return firstRows, nil
}

// hashWide mixes a wide key's values and NULL bits; the home slot is taken from its top bits.
func (t *intGroups) hashWide(k *wideKey, nb uint8) uint64 {
	h := uint64(k[0]) * hashMul
	for c := 1; c < len(t.types); c++ {
		h = bits.RotateLeft64(h, 31) ^ uint64(k[c])
		h *= hashMul
	}
	return h ^ uint64(nb)<<(64-maxIntKeys)
}

// sameWide reports whether group g holds key (k, nb).
func (t *intGroups) sameWide(g int32, k *wideKey, nb uint8) bool {
	if t.k0[g] != k[0] || t.k1[g] != k[1] || t.nulls[g] != nb {
		return false
	}
	for c, col := range t.kx {
		if col[g] != k[c+2] {
			return false
		}
	}
	return true
}

// findOrAddWide returns the group of key (k, nb), adding it as the next group (added) when
// it is new.
func (t *intGroups) findOrAddWide(k *wideKey, nb uint8) (g int32, added bool, err error) {
	if 2*(len(t.k0)+1) > len(t.slots) {
		if err := t.rehash(max(64, 2*len(t.slots))); err != nil {
			return 0, false, err
		}
	}
	mask := len(t.slots) - 1
	h := int(t.hashWide(k, nb) >> t.shift)
	for ; t.slots[h] != 0; h = (h + 1) & mask {
		if g := t.slots[h] - 1; t.sameWide(g, k, nb) {
			return g, false, nil
		}
	}
	g = int32(len(t.k0))
	t.slots[h] = g + 1
	t.k0 = append(t.k0, k[0])
	t.k1 = append(t.k1, k[1])
	for c := range t.kx {
		t.kx[c] = append(t.kx[c], k[c+2])
	}
	t.nulls = append(t.nulls, nb)
	return g, true, nil
}

// keyWide returns group g's key values on the wide path.
func (t *intGroups) keyWide(g int) wideKey {
	var k wideKey
	k[0], k[1] = t.k0[g], t.k1[g]
	for c, col := range t.kx {
		k[c+2] = col[g]
	}
	return k
}
