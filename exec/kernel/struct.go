package kernel

import (
	"cmp"
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// StructPack builds a struct array of type dt over fields (each of length n); every row is
// valid. The result holds its own references to the fields.
func StructPack(dt *arrow.StructType, fields []arrow.Array, n int) (arrow.Array, error) {
	if len(fields) != dt.NumFields() {
		return nil, dberr.New(dberr.Internal, "struct_pack: %d fields for %s", len(fields), dt)
	}
	children := make([]arrow.ArrayData, len(fields))
	for i, f := range fields {
		if f.Len() != n || !arrow.TypeEqual(f.DataType(), dt.Field(i).Type) {
			return nil, dberr.New(dberr.Internal, "struct_pack: field %d is %s of %d rows, want %s of %d", i, f.DataType(), f.Len(), dt.Field(i).Type, n)
		}
		children[i] = f.Data()
	}
	data := array.NewData(dt, n, []*memory.Buffer{nil}, children, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// StructExtract returns field name of a struct array: NULL where the struct is NULL.
func StructExtract(mem memory.Allocator, arr arrow.Array, name string) (arrow.Array, error) {
	s, ok := arr.(*array.Struct)
	if !ok {
		return nil, dberr.New(dberr.Internal, "struct_extract over %s", arr.DataType())
	}
	i, ok := s.DataType().(*arrow.StructType).FieldIdx(name)
	if !ok {
		return nil, dberr.New(dberr.Internal, "struct_extract: no field %q in %s", name, arr.DataType())
	}
	child := s.Field(i)
	if s.NullN() == 0 || child.DataType().ID() == arrow.NULL {
		child.Retain()
		return child, nil
	}
	return withParentNulls(mem, child, s), nil
}

// withParentNulls returns child with its rows NULL where parent's are.
func withParentNulls(mem memory.Allocator, child, parent arrow.Array) arrow.Array {
	d := child.Data()
	off, n := d.Offset(), d.Len()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	out := bits.Bytes()
	for i := range n {
		bitutil.SetBitTo(out, off+i, IsValid(child, i) && IsValid(parent, i))
	}
	bufs := append([]*memory.Buffer{bits}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), array.UnknownNullCount, off)
	bits.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

// IsNested reports whether t is a struct or list type (compared by CompareNested).
func IsNested(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		return true
	}
	return false
}

// CompareNested runs a comparison (equal, not_equal, less, less_equal, greater,
// greater_equal, is_distinct_from, is_not_distinct_from) over two struct or list arrays
// of one type, as DuckDB orders nested values: field by field (element by element, a
// shorter list first), with NULLs inside equal to each other and above every value. A
// NULL operand makes the result NULL, except for the DISTINCT forms.
func CompareNested(mem memory.Allocator, name string, l, r arrow.Array) (arrow.Array, error) {
	cmpRow, err := NestedComparator(l, r)
	if err != nil {
		return nil, err
	}
	distinct := strings.HasSuffix(name, "distinct_from")
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	n := l.Len()
	b.Reserve(n)
	for i := range n {
		lv, rv := IsValid(l, i), IsValid(r, i)
		switch {
		case distinct:
			same := lv == rv && (!lv || cmpRow(i, i) == 0)
			b.UnsafeAppend(same == (name == "is_not_distinct_from"))
		case !lv || !rv:
			b.UnsafeAppendBoolToBitmap(false)
		default:
			b.UnsafeAppend(compareResult(name, cmpRow(i, i)))
		}
	}
	return b.NewArray(), nil
}

func compareResult(name string, c int) bool {
	switch name {
	case "equal":
		return c == 0
	case "not_equal":
		return c != 0
	case "less":
		return c < 0
	case "less_equal":
		return c <= 0
	case "greater":
		return c > 0
	}
	return c >= 0
}

// NestedComparator returns a function comparing row i of l with row j of r (two arrays
// of one type): NULLs equal to each other and above every value.
func NestedComparator(l, r arrow.Array) (func(i, j int) int, error) {
	vals, err := valueCompare(l, r)
	if err != nil {
		return nil, err
	}
	return func(i, j int) int {
		lv, rv := IsValid(l, i), IsValid(r, j)
		switch {
		case !lv || !rv:
			return cmpBool(!lv, !rv)
		}
		return vals(i, j)
	}, nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// valueCompare compares two valid rows.
func valueCompare(l, r arrow.Array) (func(i, j int) int, error) {
	switch a := l.(type) {
	case *array.Struct:
		return structCompare(a, r.(*array.Struct))
	case array.ListLike:
		return listCompare(a, r.(array.ListLike))
	case *array.Null:
		return func(int, int) int { return 0 }, nil
	case *array.Boolean:
		b := r.(*array.Boolean)
		return func(i, j int) int { return cmpBool(a.Value(i), b.Value(j)) }, nil
	case *array.String:
		b := r.(*array.String)
		return func(i, j int) int { return strings.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.LargeString:
		b := r.(*array.LargeString)
		return func(i, j int) int { return strings.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.Float32:
		b := r.(*array.Float32)
		return func(i, j int) int { return cmpFloat(float64(a.Value(i)), float64(b.Value(j))) }, nil
	case *array.Float64:
		b := r.(*array.Float64)
		return func(i, j int) int { return cmpFloat(a.Value(i), b.Value(j)) }, nil
	case *array.Decimal128:
		b := r.(*array.Decimal128)
		return func(i, j int) int { return a.Value(i).Cmp(b.Value(j)) }, nil
	}
	if get, ok := nestedIntGetter(l); ok {
		getR, _ := nestedIntGetter(r)
		return func(i, j int) int { return cmp.Compare(get(i), getR(j)) }, nil
	}
	if get, ok := nestedUintGetter(l); ok {
		getR, _ := nestedUintGetter(r)
		return func(i, j int) int { return cmp.Compare(get(i), getR(j)) }, nil
	}
	return nil, dberr.NotSupported("comparison of nested values of type " + l.DataType().String())
}

func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		return cmpBool(an, bn)
	}
	return cmp.Compare(a, b)
}

func structCompare(l, r *array.Struct) (func(i, j int) int, error) {
	fields := make([]func(i, j int) int, l.NumField())
	for k := range fields {
		c, err := NestedComparator(l.Field(k), r.Field(k))
		if err != nil {
			return nil, err
		}
		fields[k] = c
	}
	return func(i, j int) int {
		for _, c := range fields {
			if v := c(i, j); v != 0 {
				return v
			}
		}
		return 0
	}, nil
}

func listCompare(l, r array.ListLike) (func(i, j int) int, error) {
	elems, err := NestedComparator(l.ListValues(), r.ListValues())
	if err != nil {
		return nil, err
	}
	return func(i, j int) int {
		ls, le := l.ValueOffsets(i)
		rs, re := r.ValueOffsets(j)
		for k := int64(0); ls+k < le && rs+k < re; k++ {
			if v := elems(int(ls+k), int(rs+k)); v != 0 {
				return v
			}
		}
		return cmp.Compare(le-ls, re-rs)
	}, nil
}

// nestedIntGetter reads a signed integer, date or timestamp column as int64.
func nestedIntGetter(a arrow.Array) (func(int) int64, bool) {
	switch a := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int64:
		return func(i int) int64 { return a.Value(i) }, true
	case *array.Date32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Timestamp:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	}
	return nil, false
}

// nestedUintGetter reads an unsigned integer column as uint64.
func nestedUintGetter(a arrow.Array) (func(int) uint64, bool) {
	switch a := a.(type) {
	case *array.Uint8:
		return func(i int) uint64 { return uint64(a.Value(i)) }, true
	case *array.Uint16:
		return func(i int) uint64 { return uint64(a.Value(i)) }, true
	case *array.Uint32:
		return func(i int) uint64 { return uint64(a.Value(i)) }, true
	case *array.Uint64:
		return func(i int) uint64 { return a.Value(i) }, true
	}
	return nil, false
}

// ListExtract returns element idx[i] of each list (1-based, negative counting from the
// end): NULL where the list or the index is NULL or the index is out of range. idx is an
// int64 array.
func ListExtract(ctx context.Context, mem memory.Allocator, lists, idx arrow.Array) (arrow.Array, error) {
	l, ok := lists.(array.ListLike)
	ix, iok := idx.(*array.Int64)
	if !ok || !iok {
		return nil, dberr.New(dberr.Internal, "list_extract over %s, %s", lists.DataType(), idx.DataType())
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(l.Len())
	for i := range l.Len() {
		if !IsValid(l, i) || !IsValid(ix, i) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		start, end := l.ValueOffsets(i)
		k := ix.Value(i)
		switch {
		case k > 0 && k <= end-start:
			b.UnsafeAppend(start + k - 1)
		case k < 0 && -k <= end-start:
			b.UnsafeAppend(end + k)
		default:
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
	pos := b.NewArray()
	defer pos.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), l.ListValues(), pos)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_extract")
	}
	return out, nil
}
