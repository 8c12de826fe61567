package ops

// DisableLanes makes a compute every argument on the general path (no int64 lanes), the
// reference the lane tests compare with. Call before Open.
func DisableLanes(a *Aggregate) { a.noLanes = true }

// LaneBatches returns how many batches a folded on int64 lanes.
func LaneBatches(a *Aggregate) int {
	if a.lanes == nil {
		return 0
	}
	return a.lanes.used
}

// DisableSmallKeys makes a match every group key through the general path (no packed
// keys). Call before Open.
func DisableSmallKeys(a *Aggregate) { a.small.off = true }

// SmallKeysCached returns how many packed keys a's cache holds.
func SmallKeysCached(a *Aggregate) int { return a.small.nkeys }

// CharKeyBatches returns how many batches a grouped through its one-byte key table.
func CharKeyBatches(a *Aggregate) int { return a.small.charBatches }

// FusedLaneBatches returns how many batches a summed through one fused pass over its lanes.
func FusedLaneBatches(a *Aggregate) int { return a.fusedBatches }
