package legacy

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/schema"
)

// readDictionary reads keys [a, b) of a dictionary field from its page and attaches the
// file's dictionary values.
func (r *Reader) readDictionary(ctx context.Context, f *schema.Field, dt *arrow.DictionaryType,
	batch int, a, b uint64, mem memory.Allocator) (arrow.ArrayData, error) {
	switch dt.ValueType.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
	default:
		return nil, encoding.NotSupported("legacy v1 dictionary field %q with %s values", f.Name, dt.ValueType)
	}
	d, ok := r.dicts[f.ID]
	if !ok || d.Offset < 0 || d.Length < 0 {
		return nil, fmt.Errorf("%w: dictionary field %q has no dictionary location", ErrCorruptFile, f.Name)
	}
	keys, err := r.readFixed(ctx, f, dt.IndexType, batch, a, b, mem)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	defer keys.Release()
	n := uint64(d.Length)
	values, err := r.readBinaryPage(ctx, page{pos: uint64(d.Offset), length: n}, dt.ValueType, false, 0, n, mem)
	if err != nil {
		return nil, fmt.Errorf("dictionary values: %w", err)
	}
	defer values.Release()
	if err := checkKeys(keys, int64(n)); err != nil {
		return nil, err
	}
	out := array.NewData(dt, keys.Len(), keys.Buffers(), nil, keys.NullN(), keys.Offset())
	out.SetDictionary(values)
	return out, nil
}

// checkKeys verifies every key indexes one of n dictionary values.
func checkKeys(keys arrow.ArrayData, n int64) error {
	arr := array.MakeFromData(keys)
	defer arr.Release()
	for i := range arr.Len() {
		var k int64
		switch a := arr.(type) {
		case *array.Int8:
			k = int64(a.Value(i))
		case *array.Int16:
			k = int64(a.Value(i))
		case *array.Int32:
			k = int64(a.Value(i))
		case *array.Int64:
			k = a.Value(i)
		case *array.Uint8:
			k = int64(a.Value(i))
		case *array.Uint16:
			k = int64(a.Value(i))
		case *array.Uint32:
			k = int64(a.Value(i))
		case *array.Uint64:
			k = int64(a.Value(i))
		default:
			return encoding.NotSupported("legacy v1 dictionary keys of type %s", arr.DataType())
		}
		if k < 0 || k >= n {
			return fmt.Errorf("%w: dictionary key %d out of range (%d values)", ErrCorruptFile, k, n)
		}
	}
	return nil
}
