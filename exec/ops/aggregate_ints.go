package ops

import (
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
)

// Integer group keys: when an aggregate groups by one to maxIntKeys integer-like columns
// (flatKeyType: int8..int64, uint8..uint64, dates, times, timestamps, durations) its groups
// live in an intGroups table instead of the general path's map of encoded keys. Each group's
// key values are kept in typed slices indexed by the group id (ids are dense, in order of
// first appearance, exactly as the general path numbers them), with a per-group bit set of
// the NULL key columns, so a NULL key is a group of its own. An open-addressing table with
// linear probing maps a key's hash to its group; it doubles when half full, each time
// reserving the new table against the query's memory pool first. One and two columns take
// the (k0, k1) path; three and more (TPC-H q03: int64, date32, int32) take the wide path of
// aggregate_ints_wide.go, which keeps the further columns' values in kx.
//
// A batch whose key column has another type than the one compiled (not expected: the
// evaluators' types are fixed) moves the groups into the general map (dropIntKeys), which
// then serves every later batch.

// maxIntKeys is the most key columns an intGroups table takes (bits of its NULL masks).
const maxIntKeys = 4

// intGroups is the integer-key group table of one aggregate.
type intGroups struct {
	types []arrow.Type // per key column: the compiled type
	k0    []int64      // per group: the first key column's value (0 when NULL)
	k1    []int64      // per group: the second key column's value (two or more columns)
	kx    [][]int64    // per further key column c+2, per group: its value (wide path only)
	nulls []uint8      // per group: bit c set when key column c is NULL
	slots []int32      // group+1 of each slot, 0 for empty; len is a power of two
	shift uint         // 64 - log2(len(slots)): a key's home slot is its hash >> shift
	res   *exec.Reservation

	// per batch: the key values and NULL bits of every row, reused
	v0, v1 []int64
	vx     [][]int64
	nb     []uint8
}

// newIntGroups returns an empty table for key columns of types, or nil when the keys are
// not one to maxIntKeys integer-like columns.
func newIntGroups(types []arrow.DataType, res *exec.Reservation) *intGroups {
	if len(types) == 0 || len(types) > maxIntKeys {
		return nil
	}
	t := &intGroups{res: res}
	for _, dt := range types {
		if !flatKeyType(dt) {
			return nil
		}
		t.types = append(t.types, dt.ID())
	}
	if len(types) > 2 {
		t.kx, t.vx = make([][]int64, len(types)-2), make([][]int64, len(types)-2)
	}
	return t
}

// wide reports whether the table has more than two key columns (aggregate_ints_wide.go).
func (t *intGroups) wide() bool { return len(t.kx) > 0 }

// groupBytes is the per-group size of the key slices (int64 values, NULL bits).
func (t *intGroups) groupBytes() int64 { return 8*int64(max(2, len(t.types))) + 1 }

// matches reports whether cols have the compiled key types.
func (t *intGroups) matches(cols []arrow.Array) bool {
	for c, col := range cols {
		if col.DataType().ID() != t.types[c] {
			return false
		}
	}
	return true
}

// load reads the batch's key values and NULL bits into v0, v1, vx and nb.
func (t *intGroups) load(cols []arrow.Array) {
	n := cols[0].Len()
	t.v0 = int64Values(cols[0], t.v0)
	if len(cols) >= 2 {
		t.v1 = int64Values(cols[1], t.v1)
	}
	for c := 2; c < len(cols); c++ {
		t.vx[c-2] = int64Values(cols[c], t.vx[c-2])
	}
	t.nb = grow(t.nb[:0], n)[:n]
	clear(t.nb)
	for c, col := range cols {
		if col.NullN() == 0 {
			continue
		}
		vals := t.v0
		switch {
		case c == 1:
			vals = t.v1
		case c >= 2:
			vals = t.vx[c-2]
		}
		for r := range n {
			if col.IsNull(r) {
				t.nb[r] |= 1 << c
				vals[r] = 0 // the value under a NULL is junk
			}
		}
	}
}

// assign sets the group of every included row of the batch (key columns cols, already
// checked by matches), adding groups for new keys, and returns the rows that started a
// group, in order. It fails only when the memory pool refuses a larger table.
func (t *intGroups) assign(cols []arrow.Array, groups []int32, include []bool, firstRows []int32) ([]int32, error) {
	t.load(cols)
	if t.wide() {
		return t.assignWide(groups, include, firstRows)
	}
	two := len(cols) == 2
	var k1, pk0, pk1 int64
	var pnb uint8
	prev := int32(-1)
	for r, k0 := range t.v0 {
		if include != nil && !include[r] {
			continue
		}
		if two {
			k1 = t.v1[r]
		}
		nb := t.nb[r]
		if prev >= 0 && k0 == pk0 && k1 == pk1 && nb == pnb { // runs of one key: no lookup
			groups[r] = prev
			continue
		}
		g, added, err := t.findOrAdd(k0, k1, nb)
		if err != nil {
			return firstRows, err
		}
		if added {
			firstRows = append(firstRows, int32(r))
		}
		groups[r], prev, pk0, pk1, pnb = g, g, k0, k1, nb
	}
	return firstRows, nil
}

// hash mixes a key's values and NULL bits; the home slot is taken from its top bits.
func (t *intGroups) hash(k0, k1 int64, nb uint8) uint64 {
	h := uint64(k0) * hashMul
	if len(t.types) == 2 {
		h = bits.RotateLeft64(h, 31) ^ uint64(k1)
		h *= hashMul
	}
	return h ^ uint64(nb)<<61
}

// findOrAdd returns the group of key (k0, k1, nb), adding it as the next group (added) when
// it is new.
func (t *intGroups) findOrAdd(k0, k1 int64, nb uint8) (g int32, added bool, err error) {
	if 2*(len(t.k0)+1) > len(t.slots) {
		if err := t.rehash(max(64, 2*len(t.slots))); err != nil {
			return 0, false, err
		}
	}
	mask := len(t.slots) - 1
	two := len(t.types) == 2
	h := int(t.hash(k0, k1, nb) >> t.shift)
	for ; t.slots[h] != 0; h = (h + 1) & mask {
		g := t.slots[h] - 1
		if t.k0[g] == k0 && t.nulls[g] == nb && (!two || t.k1[g] == k1) {
			return g, false, nil
		}
	}
	g = int32(len(t.k0))
	t.slots[h] = g + 1
	t.k0 = append(t.k0, k0)
	t.nulls = append(t.nulls, nb)
	if two {
		t.k1 = append(t.k1, k1)
	}
	return g, true, nil
}

// rehash moves the groups into a table of size slots (a power of two), reserving it first.
func (t *intGroups) rehash(size int) error {
	if err := t.res.TryGrow(4 * int64(size)); err != nil {
		return err
	}
	t.res.Shrink(4 * int64(len(t.slots)))
	t.slots = make([]int32, size)
	t.shift = uint(64 - bits.Len(uint(size-1)))
	mask := size - 1
	for g, k0 := range t.k0 {
		var h int
		switch {
		case t.wide():
			k := t.keyWide(g)
			h = int(t.hashWide(&k, t.nulls[g]) >> t.shift)
		case len(t.types) == 2:
			h = int(t.hash(k0, t.k1[g], t.nulls[g]) >> t.shift)
		default:
			h = int(t.hash(k0, 0, t.nulls[g]) >> t.shift)
		}
		for t.slots[h] != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = int32(g) + 1
	}
	return nil
}

// reserve makes room for n more groups without rehashing or growing the key slices on the
// way (a merge knows how many keys it may add).
func (t *intGroups) reserve(n int) error {
	total := len(t.k0) + n
	if 2*total > len(t.slots) {
		if err := t.rehash(max(64, 1<<bits.Len(uint(2*total-1)))); err != nil {
			return err
		}
	}
	t.k0 = slices.Grow(t.k0, n)
	t.nulls = slices.Grow(t.nulls, n)
	if len(t.types) >= 2 {
		t.k1 = slices.Grow(t.k1, n)
	}
	for c := range t.kx {
		t.kx[c] = slices.Grow(t.kx[c], n)
	}
	return nil
}

// key returns group g's key (one or two columns).
func (t *intGroups) key(g int) (k0, k1 int64, nb uint8) {
	if len(t.types) == 2 {
		k1 = t.k1[g]
	}
	return t.k0[g], k1, t.nulls[g]
}

// tableBytes returns the bytes of the slot table (reserved by rehash).
func (t *intGroups) tableBytes() int64 { return 4 * int64(len(t.slots)) }

// mapIntGroups is mapGroups when both a and w keep integer keys: it looks up w's keys in
// a's table, adding the new ones in w's group order, and returns w's groups' groups in a
// with the rows of w's groups that are new here.
func (a *Aggregate) mapIntGroups(w *Aggregate) ([]int32, []int32, error) {
	if err := a.ints.reserve(w.nGroups); err != nil {
		return nil, nil, err
	}
	mapping := make([]int32, w.nGroups)
	var newRows []int32
	for g := range w.nGroups {
		var dg int32
		var added bool
		var err error
		if a.ints.wide() {
			k := w.ints.keyWide(g)
			dg, added, err = a.ints.findOrAddWide(&k, w.ints.nulls[g])
		} else {
			dg, added, err = a.ints.findOrAdd(w.ints.key(g))
		}
		if err != nil {
			return nil, nil, err
		}
		if added {
			newRows = append(newRows, int32(g))
		}
		mapping[g] = dg
	}
	a.newBytes += int64(len(newRows)) * (a.ints.groupBytes() + aggStateBytes*int64(len(a.aggs)))
	return mapping, newRows, nil
}

// dropIntKeys moves a's groups from its integer-key table into the general map of encoded
// keys, which serves a from then on.
func (a *Aggregate) dropIntKeys() error {
	t := a.ints
	if t == nil {
		return nil
	}
	a.ints = nil
	a.res.Shrink(t.tableBytes())
	if a.nGroups == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, len(a.keyChunks))
	defer func() { releaseArrays(cols) }()
	for c, chunks := range a.keyChunks {
		col, err := a.concatKeys(chunks, a.schema.Field(c).Type)
		if err != nil {
			return err
		}
		cols = append(cols, col)
	}
	var rk kernel.RowKeys
	if err := rk.Encode(cols, a.nGroups); err != nil {
		return err
	}
	for g := range a.nGroups {
		k := rk.Key(g)
		a.groups[string(k)] = int32(g)
		a.newBytes += int64(len(k)) + mapEntryBytes
	}
	return nil
}
