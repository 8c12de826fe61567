package lancecat

import (
	"context"

	"github.com/flightd/flightd/catalog"
)

// SameSnapshot reports whether o reads exactly the snapshot t reads: both were loaded from
// the same decoded manifest (the catalog caches manifests by the manifest object's path,
// size and modification time, so a table dropped and created again at the same version
// number is another snapshot). A caller holding t, say a cached plan whose Table has
// memoized index selections, may keep using t instead of o. A false answer only means
// "not known to be the same" (a manifest evicted from the cache and read again is a new
// one).
func (t *Table) SameSnapshot(o catalog.Table) bool {
	ot, ok := o.(*Table)
	return ok && ot.m == t.m && ot.name == t.name
}

// StillCurrent reports whether LoadTable(ctx, name, at) would now return a Table that
// reads the snapshot t reads (SameSnapshot), without building that Table: it resolves at
// as LoadTable does (listing the table's versions, so commits are seen) and compares
// manifests. Plan caches use it to check a cached plan's tables.
func (c *Catalog) StillCurrent(ctx context.Context, name string, at catalog.VersionRef, t catalog.Table) (bool, error) {
	lt, ok := t.(*Table)
	if !ok || !validName(name) || lt.name != name {
		return false, nil
	}
	m, err := c.resolve(ctx, name, c.dataset(name), at)
	if err != nil {
		return false, classify(err)
	}
	return m == lt.m, nil
}
