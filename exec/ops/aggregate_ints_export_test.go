package ops

// DisableIntKeys makes a match integer group keys through the general map (no integer-key
// table). Call before Open.
func DisableIntKeys(a *Aggregate) { a.noInts = true }

// IntKeyGroups returns how many groups a's integer-key table holds (0: a has none).
func IntKeyGroups(a *Aggregate) int {
	if a.ints == nil {
		return 0
	}
	return len(a.ints.k0)
}

// DisableWorkerIntKeys makes worker w of p use the general map. Call before Open.
func DisableWorkerIntKeys(p *ParallelAggregate, w int) { p.workers[w].noInts = true }

// FinalIntKeyGroups returns IntKeyGroups of p's final state.
func FinalIntKeyGroups(p *ParallelAggregate) int { return IntKeyGroups(p.final) }
