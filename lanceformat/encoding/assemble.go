package encoding

import "fmt"

// Page21 is one decoded 2.1+ page (or the decoded chunks of one) of a leaf column: its
// repetition and definition levels (nil when absent) and its visible values, in order.
// Vals holds the values without the leaf's own nulls (those come from Def); item nulls
// inside a fixed-size list are already in Vals.
type Page21 struct {
	Rep, Def []uint16
	Vals     *Builder
	// NumEntries is the number of level entries (the number of values when there are no
	// levels at all).
	NumEntries int
}

// walker assembles one page into the builders of a path.
type walker struct {
	lv      *Levels
	path    []PathNode
	leafLen int    // length the leaf builder will have once pending values are appended
	valid   []bool // validity of pending leaf values
	open    []bool // open[j]: the current list at path index j is valid and non-empty
}

// Assemble appends the top-level rows [rowLo, rowHi) of p (row 0 is p's first row) to the
// builders of path, using lv to interpret the levels (§5.6.1, §5.6.8).
func Assemble(lv *Levels, path []PathNode, p *Page21, rowLo, rowHi int) error {
	if err := lv.CheckPath(path); err != nil {
		return err
	}
	if p.Rep != nil && len(p.Rep) != p.NumEntries || p.Def != nil && len(p.Def) != p.NumEntries {
		return fmt.Errorf("%d rep and %d def levels for %d entries: %w", len(p.Rep), len(p.Def), p.NumEntries, ErrCorrupt)
	}
	if lv.maxRep > 0 && p.Rep == nil {
		return fmt.Errorf("list layers without repetition levels: %w", ErrCorrupt)
	}
	leaf := path[len(path)-1].B
	if p.Rep == nil && p.Def == nil {
		return assembleFlat(path, p, rowLo, rowHi)
	}
	w := &walker{lv: lv, path: path, leafLen: leaf.Len(), open: make([]bool, len(path))}
	row, vi, vlo := -1, 0, -1
	for i := range p.NumEntries {
		var r, d int
		if p.Rep != nil {
			r = int(p.Rep[i])
		} else {
			r = lv.maxRep
		}
		if p.Def != nil {
			d = int(p.Def[i])
		}
		if r > lv.maxRep || d > len(lv.defs) {
			return fmt.Errorf("entry %d: levels (%d, %d) above the maximum (%d, %d): %w", i, r, d, lv.maxRep, len(lv.defs), ErrCorrupt)
		}
		if r == lv.maxRep {
			row++
		}
		if row < 0 {
			return fmt.Errorf("page does not start a row: %w", ErrCorrupt)
		}
		if row >= rowHi {
			break
		}
		emit := row >= rowLo
		if emit && vlo < 0 {
			vlo = vi
		}
		reached, err := w.entry(lv.maxRep-r, d, emit)
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if reached {
			vi++
		}
	}
	if vlo < 0 {
		vlo = vi
	}
	if vi > p.Vals.Len() {
		return fmt.Errorf("levels need %d values, page has %d: %w", vi, p.Vals.Len(), ErrCorrupt)
	}
	return leaf.AppendFromValidity(p.Vals, vlo, vi, w.valid)
}

// assembleFlat handles pages without levels: every entry is a valid row.
func assembleFlat(path []PathNode, p *Page21, rowLo, rowHi int) error {
	rowHi = min(rowHi, p.NumEntries)
	if rowLo > rowHi || rowHi > p.Vals.Len() {
		return fmt.Errorf("rows [%d, %d) of a page with %d values: %w", rowLo, rowHi, p.Vals.Len(), ErrCorrupt)
	}
	for _, n := range path[:len(path)-1] {
		if n.Owner {
			if err := n.B.AppendSlots(rowHi-rowLo, nil, 0); err != nil {
				return err
			}
		}
	}
	return path[len(path)-1].B.AppendFrom(p.Vals, rowLo, rowHi)
}

// entry walks one level entry from the outermost node inward. R is the Dremel repetition
// level (0: new row; k: new element of the k-th list from the outside), d the definition
// level. It reports whether the entry reached the leaf (and so consumed a value slot).
func (w *walker) entry(R, d int, emit bool) (bool, error) {
	stop, empty := len(w.path), false // path index where the entry stops
	if d > 0 {
		m := w.lv.defs[d-1]
		stop, empty = len(w.path)-1-m.layer, m.empty
	}
	started, depth, null := R == 0, 0, false
	last := len(w.path) - 1
	for j, n := range w.path {
		if !started {
			if n.IsList {
				depth++
				started = depth == R
				if started && !w.open[j] {
					return false, fmt.Errorf("repetition continues a list that is null or empty: %w", ErrCorrupt)
				}
			}
			if j == stop {
				return false, fmt.Errorf("repetition continues a list that is null or empty: %w", ErrCorrupt)
			}
			continue
		}
		if j == stop {
			null = !empty
		}
		if j == last {
			if emit {
				w.valid = append(w.valid, !null)
				w.leafLen++
			}
			w.extendLists(emit)
			return true, nil
		}
		if emit && n.Owner {
			if err := n.B.AppendSlot(!null); err != nil {
				return false, err
			}
		}
		if n.IsList {
			w.open[j] = !null && j != stop
			if !w.open[j] {
				break // a null or empty list has no items
			}
		}
	}
	if !started {
		return false, fmt.Errorf("repetition level deeper than the lists: %w", ErrCorrupt)
	}
	w.extendLists(emit)
	return false, nil
}

// extendLists makes every owned list on the path end at its child's current length.
func (w *walker) extendLists(emit bool) {
	if !emit {
		return
	}
	last := len(w.path) - 1
	for j, n := range w.path[:last] {
		if !n.IsList || !n.Owner {
			continue
		}
		if j+1 == last {
			n.B.SetLastListEnd(int64(w.leafLen))
		} else {
			n.B.SetLastListEnd(int64(w.path[j+1].B.Len()))
		}
	}
}
