package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// castEval is CAST / TRY_CAST. Float-to-integer casts round (DuckDB) instead of truncating
// (arrow); casts between integers and decimals and between decimals (rounding half away
// from zero, range-checked), casts to text and from text to date are exec/kernel's; every
// other cast is arrow's safe cast. A failing CAST is a Conversion error; a failing TRY_CAST
// makes the rows that fail NULL.
type castEval struct {
	in  Evaluator
	dt  arrow.DataType
	try bool
	mem memory.Allocator
}

func compileCast(c *plan.Cast, mem memory.Allocator) (Evaluator, error) {
	in, err := Compile(c.Input, mem)
	if err != nil {
		return nil, err
	}
	return &castEval{in: in, dt: c.DataType, try: c.Try, mem: mem}, nil
}

func (c *castEval) Type() arrow.DataType { return c.dt }

func (c *castEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := c.in.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return c.cast(ctx, v)
}

func (c *castEval) cast(ctx context.Context, v arrow.Array) (arrow.Array, error) {
	switch {
	case arrow.TypeEqual(v.DataType(), c.dt):
		v.Retain()
		return v, nil
	case v.DataType().ID() == arrow.NULL:
		return kernel.ArrayOfNull(c.mem, c.dt, v.Len()), nil
	case kernel.IsDecimalCast(v.DataType(), c.dt):
		return kernel.CastDecimal(c.mem, v, c.dt, c.try)
	case v.DataType().ID() == arrow.DECIMAL128 && (c.dt.ID() == arrow.FLOAT64 || c.dt.ID() == arrow.FLOAT32):
		if out, ok := kernel.DecimalToFloat64(c.mem, v, c.dt); ok {
			return out, nil
		}
	case isListElemCast(v.DataType(), c.dt):
		return c.castListElems(ctx, v) // cast_list_elems.go
	case kernel.IsListToArrayCast(v.DataType(), c.dt):
		return kernel.CastListToArray(ctx, c.mem, v, c.dt)
	case kernel.IsBoolToNumber(v.DataType(), c.dt):
		return kernel.CastBoolToNumber(c.mem, v, c.dt), nil
	case kernel.IsFloatToInt(v.DataType(), c.dt):
		return kernel.CastFloatToInt(c.mem, v, c.dt, c.try)
	case c.dt.ID() == arrow.STRING || c.dt.ID() == arrow.LARGE_STRING:
		if v.DataType().ID() != arrow.STRING && v.DataType().ID() != arrow.LARGE_STRING {
			return kernel.CastToString(c.mem, v, c.dt)
		}
	case c.dt.ID() == arrow.DATE32 && (v.DataType().ID() == arrow.STRING || v.DataType().ID() == arrow.LARGE_STRING):
		return kernel.CastStringToDate(c.mem, v, c.try)
	}
	out, err := compute.CastArray(compute.WithAllocator(ctx, c.mem), v, compute.SafeCastOptions(c.dt))
	if err == nil {
		return out, nil
	}
	if !c.try {
		return nil, dberr.Wrap(dberr.Conversion, err, "Could not convert %s to %s", v.DataType(), c.dt)
	}
	return c.castRows(ctx, v)
}

// castRows casts row by row, making rows that fail NULL (TRY_CAST after a batch failed).
func (c *castEval) castRows(ctx context.Context, v arrow.Array) (arrow.Array, error) {
	parts := make([]arrow.Array, 0, v.Len())
	defer func() { releaseAll(parts) }()
	for i := range v.Len() {
		one := array.NewSlice(v, int64(i), int64(i+1))
		out, err := compute.CastArray(compute.WithAllocator(ctx, c.mem), one, compute.SafeCastOptions(c.dt))
		one.Release()
		if err != nil {
			out = kernel.ArrayOfNull(c.mem, c.dt, 1)
		}
		parts = append(parts, out)
	}
	if len(parts) == 0 {
		return kernel.ArrayOfNull(c.mem, c.dt, 0), nil
	}
	out, err := array.Concatenate(parts, c.mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "try_cast: concatenate rows")
	}
	return out, nil
}
