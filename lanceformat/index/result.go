package index

import "errors"

// Kind says how a Result answers a query.
type Kind int

// Result kinds.
const (
	// NotAnswerable: the index cannot answer this query; scan instead.
	NotAnswerable Kind = iota
	// Exact: Rows are exactly the matching rows of the covered fragments (deleted rows may
	// be included; rows of uncovered fragments must be scanned).
	Exact
	// AtMost: matching rows of covered fragments lie inside Zones; other rows of covered
	// fragments cannot match.
	AtMost
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Exact:
		return "exact"
	case AtMost:
		return "at-most"
	}
	return "not-answerable"
}

// Zone is a range of rows [Start, Start+Length) of one fragment.
type Zone struct {
	Fragment      uint32
	Start, Length uint64
}

// Result is an index's answer to a Query.
type Result struct {
	Kind Kind
	// Rows is set for Exact results.
	Rows *RowSet
	// Zones is set for AtMost results, ordered by fragment and start.
	Zones []Zone
	// Covered are the fragment ids the answer speaks for, ascending.
	Covered []uint32
	// Reason says why the query is NotAnswerable.
	Reason string
}

// MayContain reports whether the row at addr may match: for Exact, membership; for AtMost,
// whether a zone holds it. It is false for NotAnswerable results (callers check Kind).
func (r Result) MayContain(addr uint64) bool {
	switch r.Kind {
	case Exact:
		return r.Rows.Contains(addr)
	case AtMost:
		f, off := uint32(addr>>32), addr&0xFFFFFFFF
		for _, z := range r.Zones {
			if z.Fragment == f && off >= z.Start && off < z.Start+z.Length {
				return true
			}
		}
	}
	return false
}

// unanswerable turns an errUnanswerable into a NotAnswerable result; other errors pass.
func unanswerable(err error) (Result, error) {
	var u errUnanswerable
	if errors.As(err, &u) {
		return Result{Kind: NotAnswerable, Reason: u.reason}, nil
	}
	return Result{}, err
}
