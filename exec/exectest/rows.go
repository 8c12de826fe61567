package exectest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Rows is a table of Go values, row by row; nil is NULL.
type Rows [][]any

// Layout says how MakeBatches lays out arrays.
type Layout int

const (
	// Plain arrays: offset 0, zeroed values under NULLs.
	Plain Layout = iota
	// Hostile arrays: a junk value under every NULL slot, and every array a slice at offset 1
	// of a larger one, so operators that ignore validity bitmaps or offsets fail.
	Hostile
)

// MakeBatches builds batches of at most size rows from rows. The caller releases them.
func MakeBatches(mem memory.Allocator, schema *arrow.Schema, rows Rows, size int, layout Layout) ([]arrow.RecordBatch, error) {
	if size <= 0 {
		size = len(rows)
	}
	var out []arrow.RecordBatch
	for start := 0; start < len(rows) || (start == 0 && len(out) == 0 && len(rows) == 0); start += size {
		if len(rows) == 0 {
			break
		}
		end := min(len(rows), start+size)
		b, err := makeBatch(mem, schema, rows[start:end], layout)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func makeBatch(mem memory.Allocator, schema *arrow.Schema, rows Rows, layout Layout) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	defer release()
	for c, f := range schema.Fields() {
		vals := make([]any, len(rows))
		for r, row := range rows {
			if len(row) != schema.NumFields() {
				return nil, fmt.Errorf("row %d has %d values, schema has %d fields", r, len(row), schema.NumFields())
			}
			vals[r] = row[c]
		}
		arr, err := makeArray(mem, f.Type, vals, layout)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols[c] = arr
	}
	return array.NewRecordBatch(schema, cols, int64(len(rows))), nil
}

// makeArray builds one column. In the hostile layout it builds 1+len(vals) values (a junk
// row first, junk under NULLs), clears the validity bits of the NULLs, and slices off row 0.
func makeArray(mem memory.Allocator, dt arrow.DataType, vals []any, layout Layout) (arrow.Array, error) {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	if layout == Plain {
		for _, v := range vals {
			if err := appendValue(b, v); err != nil {
				return nil, err
			}
		}
		return b.NewArray(), nil
	}
	all := append([]any{nil}, vals...)
	for _, v := range all {
		if v == nil {
			v = junk(dt)
		}
		if err := appendValue(b, v); err != nil {
			return nil, err
		}
	}
	full := b.NewArray()
	defer full.Release()
	withNulls := setNulls(mem, full, all)
	defer withNulls.Release()
	return array.NewSlice(withNulls, 1, int64(len(all))), nil
}

// setNulls returns arr with the rows where vals is nil marked NULL.
func setNulls(mem memory.Allocator, arr arrow.Array, vals []any) arrow.Array {
	bits := memory.NewResizableBuffer(mem)
	defer bits.Release()
	bits.Resize(int(bitutil.BytesForBits(int64(len(vals)))))
	nulls := 0
	for i, v := range vals {
		bitutil.SetBitTo(bits.Bytes(), i, v != nil)
		if v == nil {
			nulls++
		}
	}
	d := arr.Data()
	bufs := slices.Clone(d.Buffers())
	bufs[0] = bits
	data := array.NewData(d.DataType(), d.Len(), bufs, d.Children(), nulls, d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}

// junk is the value put under NULL slots: the largest value of the type, so that a kernel
// that computes (or overflow-checks) NULL rows fails.
func junk(dt arrow.DataType) any {
	switch dt.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.INT16:
		return math.MaxInt16
	case arrow.INT32, arrow.DATE32:
		return math.MaxInt32
	case arrow.INT64:
		return math.MaxInt64
	case arrow.UINT8:
		return math.MaxUint8
	case arrow.UINT16:
		return math.MaxUint16
	case arrow.UINT32:
		return math.MaxUint32
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY:
		return "JUNK-under-null"
	case arrow.BOOL:
		return true
	case arrow.FLOAT32, arrow.FLOAT64:
		return math.MaxFloat32
	case arrow.DECIMAL128:
		return "987.65"
	}
	return 0x5a
}

func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.Float32Builder:
		f, err := toFloat(v)
		b.Append(float32(f))
		return err
	case *array.Float64Builder:
		f, err := toFloat(v)
		b.Append(f)
		return err
	case *array.StringBuilder:
		return appendTyped(b.Append, v)
	case *array.LargeStringBuilder:
		return appendTyped(b.Append, v)
	case *array.BooleanBuilder:
		return appendTyped(b.Append, v)
	case *array.Decimal128Builder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("exectest: decimal %v (%T) must be a string", v, v)
		}
		dt := b.Type().(*arrow.Decimal128Type)
		n, err := decimal128.FromString(s, dt.Precision, dt.Scale)
		if err != nil {
			return err
		}
		b.Append(n)
		return nil
	}
	return appendInt(b, v)
}

func appendTyped[T any](app func(T), v any) error {
	x, ok := v.(T)
	if !ok {
		var zero T
		return fmt.Errorf("exectest: %v (%T) is not a %T", v, v, zero)
	}
	app(x)
	return nil
}

func appendInt(b array.Builder, v any) error {
	switch b.(type) {
	case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder,
		*array.Uint8Builder, *array.Uint16Builder, *array.Uint32Builder, *array.Uint64Builder, *array.Date32Builder:
	default:
		return b.AppendValueFromString(fmt.Sprint(v))
	}
	i, err := toInt(v)
	if err != nil {
		return err
	}
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(i))
	case *array.Int16Builder:
		b.Append(int16(i))
	case *array.Int32Builder:
		b.Append(int32(i))
	case *array.Int64Builder:
		b.Append(i)
	case *array.Uint8Builder:
		b.Append(uint8(i))
	case *array.Uint16Builder:
		b.Append(uint16(i))
	case *array.Uint32Builder:
		b.Append(uint32(i))
	case *array.Uint64Builder:
		b.Append(uint64(i))
	case *array.Date32Builder:
		b.Append(arrow.Date32(i))
	}
	return nil
}

func toInt(v any) (int64, error) {
	switch v := normalize(v).(type) {
	case int64:
		return v, nil
	case uint64:
		return int64(v), nil
	case arrow.Date32:
		return int64(v), nil
	case float64:
		return int64(v), nil
	}
	return 0, fmt.Errorf("exectest: %v (%T) is not an integer", v, v)
}

func toFloat(v any) (float64, error) {
	switch v := normalize(v).(type) {
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("exectest: %v (%T) is not a number", v, v)
}

// normalize maps Go values to the types ToRows produces.
func normalize(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint:
		return uint64(v)
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case float32:
		return float64(v)
	}
	return v
}

// ToRows converts batches into rows of normalized Go values.
func ToRows(batches []arrow.RecordBatch) Rows {
	var out Rows
	for _, b := range batches {
		for r := range int(b.NumRows()) {
			row := make([]any, b.NumCols())
			for c, col := range b.Columns() {
				row[c] = value(col, r)
			}
			out = append(out, row)
		}
	}
	return out
}

func value(a arrow.Array, i int) any {
	if a.NullN() == a.Len() || a.IsNull(i) { // arrays of type NULL have no bitmap
		return nil
	}
	switch a := a.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return uint64(a.Value(i))
	case *array.Uint16:
		return uint64(a.Value(i))
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Uint64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.Boolean:
		return a.Value(i)
	case *array.Date32:
		return a.Value(i)
	}
	return a.ValueStr(i)
}

// Equal reports whether two normalized values are equal; floats compare within a relative
// tolerance of 1e-9 and NaN equals NaN.
func Equal(want, got any) bool {
	want = normalize(want)
	wf, ok1 := want.(float64)
	gf, ok2 := got.(float64)
	if ok1 && ok2 {
		if math.IsNaN(wf) || math.IsNaN(gf) {
			return math.IsNaN(wf) && math.IsNaN(gf)
		}
		if math.IsInf(wf, 0) || math.IsInf(gf, 0) {
			return wf == gf
		}
		return math.Abs(wf-gf) <= 1e-9*math.Max(1, math.Max(math.Abs(wf), math.Abs(gf)))
	}
	return want == got
}
