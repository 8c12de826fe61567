package encoding

import (
	"fmt"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// PathNode is one node on the path from a top-level field down to a leaf column: the
// builder for that node, whether it is a list, and whether this leaf column is the one that
// fills the node's own slots (its validity and list offsets). Each struct or list is filled
// by the first leaf below it; the other leaves only fill their own values.
type PathNode struct {
	B      *Builder
	IsList bool
	Owner  bool
}

// defMeaning is what one definition level means: the layer (index into layers,
// innermost first) it stops at, and whether it means "empty list" rather than "null".
type defMeaning struct {
	layer int
	empty bool
}

// Levels interprets the RepDefLayer list of a 2.1 page (§5.6.1).
type Levels struct {
	layers     []enc21pb.RepDefLayer
	defs       []defMeaning // defs[d-1] for d >= 1
	maxRep     int
	maxVisible int // entries with def <= maxVisible carry a value slot
}

// NewLevels checks layers and derives the meaning of every definition level.
func NewLevels(layers []enc21pb.RepDefLayer) (*Levels, error) {
	lv := &Levels{layers: layers, maxVisible: -1}
	for k, l := range layers {
		isList := false
		switch l {
		case enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM:
		case enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM, enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST:
			lv.defs = append(lv.defs, defMeaning{layer: k})
			isList = l == enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST
		case enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST:
			lv.defs = append(lv.defs, defMeaning{layer: k, empty: true})
			isList = true
		case enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST:
			lv.defs = append(lv.defs, defMeaning{layer: k}, defMeaning{layer: k, empty: true})
			isList = true
		case enc21pb.RepDefLayer_REPDEF_ALL_VALID_LIST:
			isList = true
		default:
			return nil, fmt.Errorf("rep/def layer %v: %w", l, ErrCorrupt)
		}
		if isList {
			if lv.maxVisible < 0 {
				lv.maxVisible = countDefsBelow(lv.defs, k)
			}
			lv.maxRep++
		}
	}
	if lv.maxVisible < 0 {
		lv.maxVisible = len(lv.defs)
	}
	return lv, nil
}

func countDefsBelow(defs []defMeaning, k int) int {
	n := 0
	for _, d := range defs {
		if d.layer < k {
			n++
		}
	}
	return n
}

// IsList reports whether layer k (innermost first) is a list layer.
func (lv *Levels) IsList(k int) bool {
	switch lv.layers[k] {
	case enc21pb.RepDefLayer_REPDEF_ALL_VALID_LIST, enc21pb.RepDefLayer_REPDEF_NULLABLE_LIST,
		enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST, enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST:
		return true
	}
	return false
}

// NumLayers is the number of layers.
func (lv *Levels) NumLayers() int { return len(lv.layers) }

// MaxRep is the number of list layers.
func (lv *Levels) MaxRep() int { return lv.maxRep }

// MaxDef is the highest definition level.
func (lv *Levels) MaxDef() int { return len(lv.defs) }

// Visible reports whether an entry with definition level d occupies a value slot.
func (lv *Levels) Visible(d uint16) bool { return int(d) <= lv.maxVisible }

// CountVisible counts the entries of def (nil: all visible, n entries) that carry values.
func (lv *Levels) CountVisible(def []uint16, n int) int {
	if def == nil {
		return n
	}
	c := 0
	for _, d := range def {
		if lv.Visible(d) {
			c++
		}
	}
	return c
}

// CheckPath verifies that path (outermost first) matches the layers (innermost first).
func (lv *Levels) CheckPath(path []PathNode) error {
	if len(path) != len(lv.layers) {
		return fmt.Errorf("%d rep/def layers for a path of %d fields: %w", len(lv.layers), len(path), ErrCorrupt)
	}
	for j, n := range path {
		if n.IsList != lv.IsList(len(path)-1-j) {
			return fmt.Errorf("rep/def layer %d does not match the field's kind: %w", len(path)-1-j, ErrCorrupt)
		}
	}
	return nil
}
