package ops

// DisableDistinctInts makes a keep the DISTINCT sets of integer arguments in the general
// (encoded string) map. Call before Open.
func DisableDistinctInts(a *Aggregate) { a.noDistinctInts = true }

// DistinctIntPairs returns how many (group, value) pairs a's integer DISTINCT sets hold.
func DistinctIntPairs(a *Aggregate) int {
	n := 0
	for _, s := range a.seenInts {
		if s != nil {
			n += s.n
		}
	}
	return n
}
