package encoding

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// valueKind is the physical shape of a leaf's values.
type valueKind int

const (
	valFixed    valueKind = iota // fixed-width values (bits = 1 for booleans)
	valFSL                       // fixed-size list of fixed-width items
	valVariable                  // variable-width (strings, binary)
)

// leafValues are the visible value slots of one leaf, gathered into plain Go memory.
type leafValues struct {
	kind       valueKind
	bits       int      // fixed: bits per value; FSL: bits per item
	dim        int      // FSL: items per value
	fixed      []byte   // fixed and FSL: packed values (booleans LSB first)
	itemValid  []byte   // FSL: item validity bitmap, nil when every item is valid
	vars       [][]byte // variable: the values; invalid slots are empty
	offsetBits int      // variable: 32 or 64
	n          int
}

// valueBytes is the size of one value in bytes (FSL: the whole vector); for variable-width
// values it is the longest value.
func (v *leafValues) valueBytes() int {
	switch v.kind {
	case valFSL:
		return v.dim * v.bits / 8
	case valVariable:
		m := 0
		for _, b := range v.vars {
			m = max(m, len(b))
		}
		return m
	}
	return max(v.bits/8, 1)
}

// fixedBits returns the width in bits of a fixed-width Arrow type this writer stores flat,
// or 0.
func fixedBits(t arrow.DataType) int {
	if t.ID() == arrow.BOOL {
		return 1
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 {
		return 0
	}
	switch t.ID() {
	case arrow.DICTIONARY, arrow.NULL, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO:
		return 0
	}
	return fw.BitWidth()
}

// gatherValues copies the visible slots of leaf l (l.Idx) out of its Arrow array.
func gatherValues(l *ShreddedLeaf) (*leafValues, error) {
	a := l.Values
	n := len(l.Idx)
	switch a := a.(type) {
	case *array.String, *array.Binary:
		return gatherVariable(a, l, 32), nil
	case *array.LargeString, *array.LargeBinary:
		return gatherVariable(a, l, 64), nil
	case *array.FixedSizeList:
		return gatherFSL(a, l)
	}
	bits := fixedBits(a.DataType())
	if bits == 0 {
		return nil, NotSupported("writing values of type %s", a.DataType())
	}
	v := &leafValues{kind: valFixed, bits: bits, n: n}
	if bits == 1 {
		v.fixed = make([]byte, bitutil.BytesForBits(int64(n)))
		b := a.(*array.Boolean)
		for k, i := range l.Idx {
			if b.Value(i) {
				bitutil.SetBit(v.fixed, k)
			}
		}
		return v, nil
	}
	w := bits / 8
	src := dataBytes(a)
	off := a.Data().Offset()
	v.fixed = make([]byte, n*w)
	for k, i := range l.Idx {
		copy(v.fixed[k*w:(k+1)*w], src[(off+i)*w:(off+i+1)*w])
	}
	return v, nil
}

// dataBytes is the values buffer (buffer 1) of a fixed-width array, or nil.
func dataBytes(a arrow.Array) []byte {
	bufs := a.Data().Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return nil
	}
	return bufs[1].Bytes()
}

// varValue returns value i of a string or binary array (strings are copied).
func varValue(a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.String:
		return []byte(a.Value(i))
	case *array.LargeString:
		return []byte(a.Value(i))
	case *array.Binary:
		return a.Value(i)
	case *array.LargeBinary:
		return a.Value(i)
	}
	return nil
}

func gatherVariable(a arrow.Array, l *ShreddedLeaf, offsetBits int) *leafValues {
	v := &leafValues{kind: valVariable, offsetBits: offsetBits, n: len(l.Idx), vars: make([][]byte, len(l.Idx))}
	for k, i := range l.Idx {
		if l.Valid[k] {
			v.vars[k] = varValue(a, i)
		} else {
			v.vars[k] = []byte{}
		}
	}
	return v
}

func gatherFSL(a *array.FixedSizeList, l *ShreddedLeaf) (*leafValues, error) {
	child := a.ListValues()
	bits := fixedBits(child.DataType())
	if bits < 8 {
		return nil, NotSupported("writing fixed-size lists of %s", child.DataType())
	}
	dim := int(a.DataType().(*arrow.FixedSizeListType).Len())
	w := bits / 8
	n := len(l.Idx)
	v := &leafValues{kind: valFSL, bits: bits, dim: dim, n: n, fixed: make([]byte, n*dim*w)}
	src := dataBytes(child)
	coff := child.Data().Offset()
	var valid []byte
	for k, i := range l.Idx {
		start, _ := a.ValueOffsets(i)
		s := (coff + int(start)) * w
		if s+dim*w <= len(src) {
			copy(v.fixed[k*dim*w:(k+1)*dim*w], src[s:s+dim*w])
		}
		if child.NullN() == 0 || !l.Valid[k] {
			continue // items of a null vector are never read
		}
		for j := range dim {
			if child.IsNull(int(start) + j) {
				if valid == nil {
					valid = make([]byte, bitutil.BytesForBits(int64(n*dim)))
					bitutil.SetBitsTo(valid, 0, int64(n*dim), true)
				}
				bitutil.ClearBit(valid, k*dim+j)
			}
		}
	}
	v.itemValid = valid
	return v, nil
}

// sliceBits copies bits [start, start+n) of bm into a new bitmap starting at bit 0.
func sliceBits(bm []byte, start, n int) []byte {
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	if start%8 == 0 {
		copy(out, bm[start/8:])
		if n%8 != 0 {
			out[len(out)-1] &= byte(1<<(n%8)) - 1
		}
		return out
	}
	for i := range n {
		if bitutil.BitIsSet(bm, start+i) {
			bitutil.SetBit(out, i)
		}
	}
	return out
}

// CheckWritable reports whether values of type t can be written by this package's encoders
// (EncodeColumns20, EncodeLeaf21), so a writer can reject a schema before any data arrives.
// Supported: booleans and fixed-width primitives (ints, floats, decimals, dates, times,
// timestamps, durations, fixed-size binary), strings and binary (also large), fixed-size
// lists of byte-aligned fixed-width values, Arrow dictionaries (2.1+ only, see
// checkDictionaryWritable), maps with unsorted keys (2.2+ only), and structs and lists
// (also large) of these.
func CheckWritable(t arrow.DataType) error {
	switch t := t.(type) {
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return NotSupported("writing structs without fields")
		}
		for _, f := range t.Fields() {
			if err := CheckWritable(f.Type); err != nil {
				return err
			}
		}
		return nil
	case *arrow.ListType:
		return CheckWritable(t.Elem())
	case *arrow.LargeListType:
		return CheckWritable(t.Elem())
	case *arrow.FixedSizeListType:
		if fixedBits(t.Elem()) < 8 {
			return NotSupported("writing fixed-size lists of %s", t.Elem())
		}
		return nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.BinaryType, *arrow.LargeBinaryType:
		return nil
	case *arrow.DictionaryType:
		return checkDictionaryWritable(t)
	case *arrow.MapType:
		if t.KeysSorted {
			return NotSupported("writing maps with sorted keys")
		}
		return CheckWritable(t.Elem())
	}
	if fixedBits(t) == 0 {
		return NotSupported("writing values of type %s", t)
	}
	return nil
}
