package lancecat

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/table"
)

// On a table with stable row ids (reader flag 2) an index may hold row ids instead of row
// addresses. pylance 14 writes both kinds there: its BITMAP (and LABEL_LIST) files hold row
// ids, which stay valid when compaction moves rows (the index keeps its files and only its
// fragment bitmap changes), while its BTREE files hold row addresses and are rewritten by
// compaction. The two are told apart by their values: a row id is below next_row_id, far
// under 2^32, so its high 32 bits are 0, while an address's high bits are its fragment id.
// An answer with a member outside "fragment" 0 is therefore made of addresses and is used
// as is. An answer entirely inside "fragment" 0 is mapped as row ids; if it was made of
// addresses of fragment 0, the mapping changes nothing, because fragment 0 is the first
// fragment ever written and its row id sequence is 0..n-1 (a rewritten fragment gets a new
// id).
//
// The fragments' row id sequences say where each id lives now; idMap inverts them, once
// per snapshot. An id may live at several addresses (an updated row's deleted copy and its
// new one): each is selected, deletion vectors drop the dead one, and a fragment the index
// does not cover is scanned whole as usual.

// idRun is a run of consecutive row ids at consecutive offsets of one fragment.
type idRun struct {
	start, n uint64 // ids [start, start+n)
	addr     uint64 // address of id start
}

// idMap maps stable row ids to row addresses.
type idMap struct {
	runs   []idRun  // by start
	maxEnd []uint64 // maxEnd[i]: the largest start+n of runs[:i+1]
}

// stableIDs reports whether the table has stable row ids (its indexes may hold row ids).
func (t *Table) stableIDs() bool {
	return t.m.Proto.GetReaderFeatureFlags()&table.FlagStableRowIDs != 0
}

// rowIDMap returns the snapshot's id map, building it once; a failure other than
// cancellation is cached (the indexes are then not used).
func (t *Table) rowIDMap(ctx context.Context) (*idMap, error) {
	snap := t.snapshot()
	snap.idsMu.Lock()
	defer snap.idsMu.Unlock()
	if snap.ids != nil || snap.idsErr != nil {
		return snap.ids, snap.idsErr
	}
	m, err := t.buildIDMap(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	snap.ids, snap.idsErr = m, err
	return m, err
}

// buildIDMap reads every fragment's row id sequence into runs.
func (t *Table) buildIDMap(ctx context.Context) (*idMap, error) {
	m := &idMap{}
	for fi, f := range t.m.Fragments() {
		ids, err := t.stableRowIDs(ctx, fi)
		if err != nil {
			return nil, err
		}
		m.addFragment(f.GetId(), ids)
	}
	m.finish()
	return m, nil
}

// addFragment adds the runs of fragment frag, whose rows have the given ids.
func (m *idMap) addFragment(frag uint64, ids []uint64) {
	base := frag << 32
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 {
			j++
		}
		m.runs = append(m.runs, idRun{start: ids[i], n: uint64(j - i), addr: base | uint64(i)})
		i = j
	}
}

// finish sorts the runs and computes maxEnd.
func (m *idMap) finish() {
	slices.SortFunc(m.runs, func(a, b idRun) int { return cmp.Compare(a.start, b.start) })
	m.maxEnd = make([]uint64, len(m.runs))
	var top uint64
	for i, r := range m.runs {
		top = max(top, r.start+r.n)
		m.maxEnd[i] = top
	}
}

// appendAddrs appends the addresses of row id id.
func (m *idMap) appendAddrs(out []uint64, id uint64) []uint64 {
	// The runs starting at or before id, walked back while one may still reach it.
	i, _ := slices.BinarySearchFunc(m.runs, id+1, func(r idRun, v uint64) int { return cmp.Compare(r.start, v) })
	for i--; i >= 0 && m.maxEnd[i] > id; i-- {
		if r := m.runs[i]; id < r.start+r.n {
			out = append(out, r.addr+(id-r.start))
		}
	}
	return out
}

// toAddrs maps an Exact result over row ids to one over row addresses. Row ids no fragment
// holds any more (deleted rows whose fragment was rewritten) are dropped.
func (m *idMap) toAddrs(res index.Result) (index.Result, error) {
	var addrs []uint64
	for _, f := range res.Rows.Fragments() {
		if res.Rows.IsFull(f) {
			return index.Result{}, fmt.Errorf("%w: a whole-fragment answer over row ids", errIndexDisagrees)
		}
		for _, off := range res.Rows.Offsets(f) {
			addrs = m.appendAddrs(addrs, uint64(f)<<32|uint64(off))
		}
	}
	res.Rows = index.RowSetOf(addrs...)
	return res, nil
}

// holdsRowIDs reports whether an Exact answer on a stable-row-id table is made of row ids
// (every member in "fragment" 0; see the top of this file).
func holdsRowIDs(rows *index.RowSet) bool {
	fs := rows.Fragments()
	return len(fs) == 0 || (len(fs) == 1 && fs[0] == 0)
}

// mapStableIDs turns an index answer on a stable-row-id table into one over addresses:
// Exact answers made of row ids are mapped; zone answers (AtMost) are not used (zone
// indexes over stable row ids are not supported yet).
func (t *Table) mapStableIDs(ctx context.Context, res index.Result) (index.Result, error) {
	switch res.Kind {
	case index.Exact:
		if !holdsRowIDs(res.Rows) {
			return res, nil
		}
		m, err := t.rowIDMap(ctx)
		if err != nil {
			return index.Result{}, err
		}
		return m.toAddrs(res)
	case index.AtMost:
		return index.Result{Kind: index.NotAnswerable, Reason: "zones of an index over stable row ids"}, nil
	}
	return res, nil
}
