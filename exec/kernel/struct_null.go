package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ArrayOfNull returns n NULL rows of type dt: array.MakeArrayOfNull, which cannot build a
// struct with a field of type NULL (DuckDB's {'b': NULL}, and the union of structs with
// such a field, have one).
func ArrayOfNull(mem memory.Allocator, dt arrow.DataType, n int) arrow.Array {
	st, ok := dt.(*arrow.StructType)
	if !ok || !hasNullField(st) {
		return array.MakeArrayOfNull(mem, dt, n)
	}
	children := make([]arrow.ArrayData, st.NumFields())
	for i, f := range st.Fields() {
		c := ArrayOfNull(mem, f.Type, n)
		children[i] = c.Data()
		defer c.Release()
	}
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(bits.Bytes())
	defer bits.Release()
	data := array.NewData(dt, n, []*memory.Buffer{bits}, children, n, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// hasNullField reports whether st has a field of type NULL, at any depth of structs.
func hasNullField(st *arrow.StructType) bool {
	for _, f := range st.Fields() {
		switch t := f.Type.(type) {
		case *arrow.NullType:
			return true
		case *arrow.StructType:
			if hasNullField(t) {
				return true
			}
		}
	}
	return false
}
