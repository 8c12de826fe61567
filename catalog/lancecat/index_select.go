package lancecat

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/index"
)

// fragSel is the evaluated selection of one fragment. all with exact means every row
// matches; all without exact means "unknown: read everything". Otherwise ranges are the
// rows to read, exactly the matching rows (deleted ones included) when exact.
type fragSel struct {
	all    bool
	exact  bool
	ranges []catalog.RowRange
}

var unknownSel = fragSel{all: true}

// evaluator evaluates an IndexExpr over a table's indexes, one fragSel per fragment.
type evaluator struct {
	t    *Table
	used map[string]bool // names of the indexes that answered
}

func (ev *evaluator) eval(ctx context.Context, e *catalog.IndexExpr) ([]fragSel, error) {
	switch e.Kind {
	case catalog.IndexPred:
		return ev.pred(ctx, e)
	case catalog.IndexNot:
		in, err := ev.eval(ctx, e.Args[0])
		if err != nil {
			return nil, err
		}
		for fi := range in {
			n, err := ev.t.physicalRows(ctx, fi)
			if err != nil {
				return nil, err
			}
			in[fi] = notSel(in[fi], n)
		}
		return in, nil
	}
	args := e.Args
	if e.Kind == catalog.IndexAnd {
		args = mergeRanges(args, ev.columnType) // index_ranges.go
	}
	acc, err := ev.eval(ctx, args[0])
	if err != nil {
		return nil, err
	}
	for _, a := range args[1:] {
		next, err := ev.eval(ctx, a)
		if err != nil {
			return nil, err
		}
		for fi := range acc {
			if e.Kind == catalog.IndexAnd {
				acc[fi] = andSel(acc[fi], next[fi])
			} else {
				acc[fi] = orSel(acc[fi], next[fi])
			}
		}
	}
	return acc, nil
}

// preference lists the index types to try for an operator, best first.
func preference(op catalog.IndexOp) []index.Type {
	switch op {
	case catalog.IndexEq, catalog.IndexIn:
		return []index.Type{index.TypeBTree, index.TypeBitmap, index.TypeBloomFilter, index.TypeZoneMap}
	case catalog.IndexLt, catalog.IndexLe, catalog.IndexGt, catalog.IndexGe, catalog.IndexBetween:
		return []index.Type{index.TypeBTree, index.TypeBitmap, index.TypeZoneMap}
	case catalog.IndexIsNull:
		return []index.Type{index.TypeBTree, index.TypeBitmap, index.TypeLabelList, index.TypeZoneMap, index.TypeBloomFilter}
	case catalog.IndexIsNotNull:
		return []index.Type{index.TypeBTree, index.TypeBitmap, index.TypeZoneMap, index.TypeBloomFilter}
	case catalog.IndexArrayHasAny, catalog.IndexArrayHasAll:
		return []index.Type{index.TypeLabelList}
	}
	return nil
}

var indexOps = map[catalog.IndexOp]index.Op{
	catalog.IndexEq: index.OpEq, catalog.IndexIn: index.OpIn, catalog.IndexLt: index.OpLt,
	catalog.IndexLe: index.OpLe, catalog.IndexGt: index.OpGt, catalog.IndexGe: index.OpGe,
	catalog.IndexBetween: index.OpBetween, catalog.IndexIsNull: index.OpIsNull,
	catalog.IndexIsNotNull: index.OpIsNotNull, catalog.IndexArrayHasAny: index.OpArrayHasAny,
	catalog.IndexArrayHasAll: index.OpArrayHasAll,
}

// pred answers one comparison with the first index on its column that can.
func (ev *evaluator) pred(ctx context.Context, e *catalog.IndexExpr) ([]fragSel, error) {
	q := index.Query{Op: indexOps[e.Op], Values: e.Values}
	for _, typ := range preference(e.Op) {
		for _, u := range ev.t.usableIndexes(ctx) {
			if u.pub.Column != e.Column || u.info.Type != typ {
				continue
			}
			res, err := ev.t.search(ctx, u, q)
			if err != nil {
				return nil, err
			}
			if res.Kind == index.NotAnswerable {
				continue
			}
			sels, err := ev.fromResult(ctx, u, res)
			if err != nil {
				warnOnce(indexKey(ev.t, u.info), "lancecat: scalar index answer unusable; scanning instead",
					"table", ev.t.name, "version", ev.t.Version(), "index", u.info.Name, "err", err)
				continue
			}
			ev.used[u.info.Name] = true
			return sels, nil
		}
	}
	return ev.unknown(), nil
}

func (ev *evaluator) unknown() []fragSel {
	out := make([]fragSel, len(ev.t.m.Fragments()))
	for i := range out {
		out[i] = unknownSel
	}
	return out
}

// fromResult turns an index answer into per-fragment selections. Fragments the answer does
// not cover (appended later, or sharing an id) are unknown.
func (ev *evaluator) fromResult(ctx context.Context, u *usableIndex, res index.Result) ([]fragSel, error) {
	out := ev.unknown()
	zones := map[uint32][]catalog.RowRange{}
	for _, z := range res.Zones {
		end := min(z.Start+z.Length, math.MaxInt64)
		zones[z.Fragment] = append(zones[z.Fragment], catalog.RowRange{Start: int64(min(z.Start, math.MaxInt64)), End: int64(end)})
	}
	for fi, f := range ev.t.m.Fragments() {
		id := f.GetId()
		if id > math.MaxUint32 || !u.covered[uint32(id)] {
			continue
		}
		if _, ok := slices.BinarySearch(res.Covered, uint32(id)); !ok {
			continue
		}
		n, err := ev.t.physicalRows(ctx, fi)
		if err != nil {
			return nil, err
		}
		switch res.Kind {
		case index.Exact:
			if res.Rows.IsFull(uint32(id)) {
				out[fi] = fragSel{all: true, exact: true}
				continue
			}
			offs := res.Rows.Offsets(uint32(id))
			if len(offs) > 0 && int64(offs[len(offs)-1]) >= n {
				return nil, fmt.Errorf("%w: fragment %d: row %d of %d", errIndexDisagrees, id, offs[len(offs)-1], n)
			}
			out[fi] = fragSel{exact: true, ranges: offsetRanges(offs)}
		case index.AtMost:
			out[fi] = fragSel{ranges: normalizeRanges(zones[uint32(id)], n)}
		}
	}
	return out, nil
}

// offsetRanges turns sorted distinct offsets into ranges of consecutive rows.
func offsetRanges(offs []uint32) []catalog.RowRange {
	var out []catalog.RowRange
	for _, o := range offs {
		if k := len(out) - 1; k >= 0 && out[k].End == int64(o) {
			out[k].End++
			continue
		}
		out = append(out, catalog.RowRange{Start: int64(o), End: int64(o) + 1})
	}
	return out
}

// normalizeRanges clips ranges to [0, n), sorts them and merges overlapping or adjacent ones.
func normalizeRanges(rs []catalog.RowRange, n int64) []catalog.RowRange {
	slices.SortFunc(rs, func(a, b catalog.RowRange) int { return cmp.Compare(a.Start, b.Start) })
	var out []catalog.RowRange
	for _, r := range rs {
		r.Start, r.End = max(r.Start, 0), min(r.End, n)
		if r.Start >= r.End {
			continue
		}
		if k := len(out) - 1; k >= 0 && r.Start <= out[k].End {
			out[k].End = max(out[k].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// andSel intersects two selections of one fragment.
func andSel(a, b fragSel) fragSel {
	exact := a.exact && b.exact
	switch {
	case a.all:
		return fragSel{all: b.all, exact: exact, ranges: b.ranges}
	case b.all:
		return fragSel{exact: exact, ranges: a.ranges}
	}
	var out []catalog.RowRange
	i, j := 0, 0
	for i < len(a.ranges) && j < len(b.ranges) {
		lo, hi := max(a.ranges[i].Start, b.ranges[j].Start), min(a.ranges[i].End, b.ranges[j].End)
		if lo < hi {
			out = append(out, catalog.RowRange{Start: lo, End: hi})
		}
		if a.ranges[i].End < b.ranges[j].End {
			i++
		} else {
			j++
		}
	}
	return fragSel{exact: exact, ranges: out}
}

// orSel unites two selections of one fragment.
func orSel(a, b fragSel) fragSel {
	exact := a.exact && b.exact
	if a.all || b.all {
		// Exactly "every row" only when the full side is exact.
		return fragSel{all: true, exact: (a.all && a.exact) || (b.all && b.exact)}
	}
	rs := append(slices.Clone(a.ranges), b.ranges...)
	return fragSel{exact: exact, ranges: normalizeRanges(rs, math.MaxInt64)}
}

// notSel complements an exact selection of a fragment of n rows; anything else is unknown.
// The complement is a superset of the rows where NOT holds (rows whose operand is NULL are
// in it), which is all a selection promises.
func notSel(a fragSel, n int64) fragSel {
	if !a.exact {
		return unknownSel
	}
	if a.all {
		return fragSel{exact: true}
	}
	var out []catalog.RowRange
	next := int64(0)
	for _, r := range a.ranges {
		if r.Start > next {
			out = append(out, catalog.RowRange{Start: next, End: r.Start})
		}
		next = r.End
	}
	if next < n {
		out = append(out, catalog.RowRange{Start: next, End: n})
	}
	if len(out) == 1 && out[0].Start == 0 && out[0].End == n {
		return fragSel{all: true, exact: true}
	}
	return fragSel{exact: true, ranges: out}
}
