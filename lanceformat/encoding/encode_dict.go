package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
)

// checkDictionaryWritable reports whether an Arrow dictionary type can be written: integer
// keys and values of a type the readers rebuild dictionaries of (strings, binary, fixed-size
// binary, integers, floats, dates and timestamps). Not supported yet: large_string and
// large_binary values (Lance writes them, but arrow-go cannot build such dictionaries, so
// our reader could not read the file back).
func checkDictionaryWritable(t *arrow.DictionaryType) error {
	switch t.IndexType.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
	default:
		return NotSupported("writing dictionaries with %s keys", t.IndexType)
	}
	switch t.ValueType.ID() {
	case arrow.STRING, arrow.BINARY, arrow.FIXED_SIZE_BINARY,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		return nil
	}
	return NotSupported("writing dictionaries of %s", t.ValueType)
}

// encodeArrowDictionary writes an Arrow dictionary leaf the way Lance does: a mini-block
// page whose dictionary block is the Arrow dictionary's values as they are (a Variable block
// for strings and binary, Flat for fixed-width values) and whose values are the keys at the
// key type's width, compressed like any integers.
func encodeArrowDictionary(l *ShreddedLeaf, v22 bool, opts LeafOptions) (*EncodedPage, error) {
	d, ok := l.Values.(*array.Dictionary)
	if !ok {
		return nil, fmt.Errorf("dictionary leaf holds %s: %w", l.Values.DataType(), ErrCorrupt)
	}
	dt := d.DataType().(*arrow.DictionaryType)
	if err := checkDictionaryWritable(dt); err != nil {
		return nil, err
	}
	items := d.Dictionary()
	if items.NullN() > 0 {
		return nil, NotSupported("writing dictionaries whose values contain nulls")
	}
	dict, err := dictionaryBlock(items)
	if err != nil {
		return nil, err
	}
	bits := dt.IndexType.(arrow.FixedWidthDataType).BitWidth()
	w := bits / 8
	keys := &leafValues{kind: valFixed, bits: bits, n: len(l.Idx), fixed: make([]byte, w*len(l.Idx))}
	maxKey := 1<<bits - 1 // the largest key the key type holds
	if arrow.IsSignedInteger(dt.IndexType.ID()) {
		maxKey = 1<<(bits-1) - 1
	}
	var word [8]byte
	for k, i := range l.Idx {
		if !l.Valid[k] {
			continue // null slots keep key 0
		}
		idx := d.GetValueIndex(i)
		if idx > maxKey {
			return nil, fmt.Errorf("dictionary key %d at slot %d does not fit %s: %w", idx, i, dt.IndexType, ErrCorrupt)
		}
		if idx < 0 || idx >= items.Len() {
			return nil, fmt.Errorf("dictionary key %d at slot %d outside %d values: %w", idx, i, items.Len(), ErrCorrupt)
		}
		binary.LittleEndian.PutUint64(word[:], uint64(idx))
		copy(keys.fixed[k*w:(k+1)*w], word[:w])
	}
	var enc chunkEncoder = flatChunks{keys}
	if opts.Compression != "none" {
		if enc, err = chooseFixed(keys, true); err != nil {
			return nil, err
		}
	}
	return encodeMiniBlockWith(l, enc, v22, dict, opts)
}

// dictionaryBlock encodes the values of an Arrow dictionary as a mini-block dictionary
// block.
func dictionaryBlock(items arrow.Array) (*dictPage, error) {
	n := items.Len()
	switch items.(type) {
	case *array.String, *array.Binary, *array.LargeString, *array.LargeBinary:
		offsetBits := 32
		if _, ok := items.(*array.LargeString); ok {
			offsetBits = 64
		} else if _, ok := items.(*array.LargeBinary); ok {
			offsetBits = 64
		}
		vals := make([][]byte, n)
		for i := range vals {
			vals[i] = varValue(items, i)
		}
		block, err := compress.EncodeVariableBlock(vals, offsetBits)
		if err != nil {
			return nil, fmt.Errorf("dictionary values: %w", err)
		}
		return &dictPage{encoding: variableEnc(offsetBits), block: block, items: n}, nil
	}
	bits := fixedBits(items.DataType())
	if bits < 8 {
		return nil, NotSupported("writing dictionaries of %s", items.DataType())
	}
	w := bits / 8
	off := items.Data().Offset()
	src := dataBytes(items)
	if len(src) < (off+n)*w {
		return nil, fmt.Errorf("dictionary values buffer of %d bytes for %d values: %w", len(src), n, ErrCorrupt)
	}
	block := append([]byte(nil), src[off*w:(off+n)*w]...)
	return &dictPage{encoding: flatEnc(bits), block: block, items: n}, nil
}

// wrapDictionary22 wraps a 2.2 dictionary block in General{LZ4}, as pylance 14 does for
// every dictionary block it writes in 2.2 files.
func wrapDictionary22(d *dictPage) (*dictPage, error) {
	c, err := compressFrame(compress.SchemeLZ4, 0, d.block)
	if err != nil {
		return nil, fmt.Errorf("dictionary block: %w", err)
	}
	return &dictPage{encoding: generalEnc(compress.SchemeLZ4, nil, d.encoding), block: c, items: d.items}, nil
}
