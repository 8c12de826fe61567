package lancecat

import "github.com/flightd/flightd/catalog"

// MemoizeFailedSearch leaves in t's memo a search of e that ended with err, as a search
// another query started and then cancelled leaves it for the callers already waiting on it.
func (t *Table) MemoizeFailedSearch(e *catalog.IndexExpr, err error) {
	ent := &selEntry{}
	ent.once.Do(func() { ent.err = err })
	t.idx.mu.Lock()
	defer t.idx.mu.Unlock()
	if t.idx.memo == nil {
		t.idx.memo = map[string]*selEntry{}
	}
	t.idx.memo[e.String()] = ent
}
