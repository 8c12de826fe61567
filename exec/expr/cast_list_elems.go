package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/internal/dberr"
)

// isListElemCast reports whether src to dst casts a list to a list of another element
// type (INTEGER[] to DECIMAL(11,1)[], INTEGER[][] to BIGINT[][]) or a fixed-size list to
// one of the same size (TINYINT[128] to FLOAT[128]).
func isListElemCast(src, dst arrow.DataType) bool {
	if s, ok := src.(*arrow.FixedSizeListType); ok {
		d, ok := dst.(*arrow.FixedSizeListType)
		return ok && s.Len() == d.Len()
	}
	return src.ID() == arrow.LIST && dst.ID() == arrow.LIST
}

// castListElems casts a list array's values to dst's element type by the rules of any
// cast (so nested lists and decimals use flightd's kernels), keeping the parent's buffers
// (validity, and offsets for a list) and offset. arrow-go v18.8.0's own list cast leaks 64
// bytes per call, and it has no fixed-size list element cast.
func (c *castEval) castListElems(ctx context.Context, v arrow.Array) (arrow.Array, error) {
	l, ok := v.(array.ListLike)
	dst, ok2 := c.dt.(arrow.ListLikeType)
	if !ok || !ok2 {
		return nil, dberr.New(dberr.Internal, "cast %s to %s: not lists", v.DataType(), c.dt)
	}
	elems := &castEval{dt: dst.Elem(), try: c.try, mem: c.mem}
	vals, err := elems.cast(ctx, l.ListValues())
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	src := v.Data()
	data := array.NewData(c.dt, src.Len(), src.Buffers(), []arrow.ArrayData{vals.Data()}, src.NullN(), src.Offset())
	defer data.Release()
	return array.MakeFromData(data), nil
}
