package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// ShreddedLeaf is one leaf column of a top-level Arrow array split the way a 2.1+ page
// stores it (§5.6.1): the rep/def layers, the level streams, and the visible value slots.
type ShreddedLeaf struct {
	// Layers are the rep/def layers, innermost (the leaf itself) first.
	Layers []enc21pb.RepDefLayer
	// Rep and Def are the level streams, one entry per item plus one per special (null or
	// empty list, null struct above a list). Rep is nil without list layers; Def is nil when
	// no layer has nulls or empty lists.
	Rep, Def []uint16
	// MaxRep is the number of list layers.
	MaxRep uint16
	// Values is the leaf's Arrow array; Idx holds, for each visible entry in order, the
	// index into Values of its slot, and Valid whether that slot is valid at every layer.
	Values arrow.Array
	Idx    []int
	Valid  []bool
	// Rows is the number of top-level rows.
	Rows int
}

// NumEntries is the number of rep/def entries (equal to the number of visible values when
// there are no lists).
func (l *ShreddedLeaf) NumEntries() int {
	switch {
	case l.Rep != nil:
		return len(l.Rep)
	case l.Def != nil:
		return len(l.Def)
	}
	return len(l.Idx)
}

// shredNode is one array on the path from the top-level array to a leaf, with the def levels
// its layer uses (0 = none).
type shredNode struct {
	arr         arrow.Array
	list        array.ListLike // non-nil for list and large list nodes
	nullLevel   uint16
	emptyLevel  uint16
	listBelow   bool   // a list node lies strictly below this one
	repOfNested uint16 // for list nodes: the rep level of a new item of this list
}

// ShredLeaves splits a top-level array into its leaf columns, in the pre-order of the leaves
// of its type (struct members in order, a list's item, a map's key then value). Structs,
// lists and maps are transparent;
// everything else (including fixed-size lists) is a leaf.
func ShredLeaves(arr arrow.Array) ([]*ShreddedLeaf, error) {
	var paths [][]arrow.Array
	var walk func(prefix []arrow.Array, a arrow.Array) error
	walk = func(prefix []arrow.Array, a arrow.Array) error {
		p := append(append([]arrow.Array(nil), prefix...), a)
		switch a := a.(type) {
		case *array.Struct:
			if a.NumField() == 0 {
				return NotSupported("structs without fields")
			}
			for j := range a.NumField() {
				if err := walk(p, a.Field(j)); err != nil {
					return err
				}
			}
		case *array.List:
			return walk(p, a.ListValues())
		case *array.LargeList:
			return walk(p, a.ListValues())
		case *array.Map: // a list of key/value structs
			return walk(p, a.ListValues())
		case *array.ListView, *array.LargeListView, *array.DenseUnion,
			*array.SparseUnion, *array.RunEndEncoded:
			return NotSupported("writing %s", a.DataType())
		default:
			paths = append(paths, p)
		}
		return nil
	}
	if err := walk(nil, arr); err != nil {
		return nil, err
	}
	out := make([]*ShreddedLeaf, len(paths))
	for i, p := range paths {
		l, err := shredPath(p)
		if err != nil {
			return nil, fmt.Errorf("leaf %d (%s): %w", i, p[len(p)-1].DataType(), err)
		}
		out[i] = l
	}
	return out, nil
}

// shredPath computes the layers and levels of one root-to-leaf path.
func shredPath(path []arrow.Array) (*ShreddedLeaf, error) {
	d := len(path) - 1
	nodes := make([]shredNode, len(path))
	for k, a := range path {
		nodes[k].arr = a
		if ll, ok := a.(array.ListLike); ok && k < d {
			nodes[k].list = ll
		}
	}
	l := &ShreddedLeaf{Values: path[d], Rows: path[0].Len(), Layers: make([]enc21pb.RepDefLayer, len(path))}
	maxDef := assignLevels(l, nodes)
	s := &shredder{leaf: l, nodes: nodes, withDef: maxDef > 0, withRep: l.MaxRep > 0}
	for i := range path[0].Len() {
		s.emit(0, i, l.MaxRep)
	}
	return l, nil
}

// hasEmptyList reports whether a valid row of list ll is empty.
func hasEmptyList(a arrow.Array, ll array.ListLike) bool {
	for i := range a.Len() {
		if s, e := ll.ValueOffsets(i); s == e && a.IsValid(i) {
			return true
		}
	}
	return false
}

// assignLevels picks each node's layer kind from its data (nulls, empty lists), numbers the
// definition levels innermost first (§5.6.1) and returns the highest one.
func assignLevels(l *ShreddedLeaf, nodes []shredNode) uint16 {
	d := len(nodes) - 1
	var level uint16
	listBelow := false
	for k := d; k >= 0; k-- {
		n := &nodes[k]
		n.listBelow = listBelow
		nulls := n.arr.NullN() > 0
		if n.list == nil {
			l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM
			if nulls {
				level++
				n.nullLevel = level
				l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM
			}
			continue
		}
		listBelow = true
		l.MaxRep++
		n.repOfNested = l.MaxRep - 1
		switch empty := hasEmptyList(n.arr, n.list); {
		case nulls && empty:
			n.nullLevel, n.emptyLevel = level+1, level+2
			level += 2
			l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST
		case nulls:
			level++
			n.nullLevel = level
			l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST
		case empty:
			level++
			n.emptyLevel = level
			l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST
		default:
			l.Layers[d-k] = enc21pb.RepDefLayer_REPDEF_ALL_VALID_LIST
		}
	}
	return level
}

// shredder walks the rows of one path and appends entries to leaf.
type shredder struct {
	leaf             *ShreddedLeaf
	nodes            []shredNode
	withDef, withRep bool
}

func (s *shredder) entry(rep, def uint16, visibleIdx int) {
	if s.withRep {
		s.leaf.Rep = append(s.leaf.Rep, rep)
	}
	if s.withDef {
		s.leaf.Def = append(s.leaf.Def, def)
	}
	if visibleIdx >= 0 {
		s.leaf.Idx = append(s.leaf.Idx, visibleIdx)
		s.leaf.Valid = append(s.leaf.Valid, def == 0)
	}
}

// emit appends the entries of slot i of node k; rep is the repetition level its first entry
// carries.
func (s *shredder) emit(k, i int, rep uint16) {
	for {
		n := &s.nodes[k]
		if n.arr.IsNull(i) {
			if n.list != nil || n.listBelow {
				s.entry(rep, n.nullLevel, -1)
			} else {
				// Only structs lie below: the leaf slot has the same index.
				s.entry(rep, n.nullLevel, i)
			}
			return
		}
		if k == len(s.nodes)-1 {
			s.entry(rep, 0, i)
			return
		}
		if n.list == nil {
			k++ // struct: children are aligned with the struct's slots
			continue
		}
		start, end := n.list.ValueOffsets(i)
		if start == end {
			s.entry(rep, n.emptyLevel, -1)
			return
		}
		for j := start; j < end; j++ {
			r := n.repOfNested
			if j == start {
				r = rep
			}
			s.emit(k+1, int(j), r)
		}
		return
	}
}
