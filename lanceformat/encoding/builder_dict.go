package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// newDictBuilder returns a builder for an Arrow dictionary field. It accumulates the
// materialized values; Finish re-encodes them as a dictionary (first-seen order).
func newDictBuilder(dt *arrow.DictionaryType) (*Builder, error) {
	switch dt.ValueType.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
	default:
		return nil, NotSupported("dictionary of %s", dt.ValueType)
	}
	if !arrow.IsInteger(dt.IndexType.ID()) {
		return nil, fmt.Errorf("dictionary index type %s: %w", dt.IndexType, ErrCorrupt)
	}
	b, err := NewBuilder(dt.ValueType)
	if err != nil {
		return nil, err
	}
	b.dict = dt
	return b, nil
}

// IsDictionary reports whether b builds an Arrow dictionary field.
func (b *Builder) IsDictionary() bool { return b.dict != nil }

// finishDict builds the dense values, then dictionary-encodes them.
func (b *Builder) finishDict(mem memory.Allocator) (_ arrow.ArrayData, err error) {
	dense, err := b.finishDense(mem)
	if err != nil {
		return nil, err
	}
	defer dense.Release()
	vals := array.MakeFromData(dense)
	defer vals.Release()
	db := array.NewDictionaryBuilder(mem, b.dict)
	defer db.Release()
	if err := db.AppendArray(vals); err != nil {
		return nil, fmt.Errorf("dictionary-encode %s: %w", b.dict, err)
	}
	arr := db.NewDictionaryArray()
	defer arr.Release()
	d := arr.Data()
	d.Retain()
	return d, nil
}
