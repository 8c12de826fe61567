// Package expr compiles bound plan expressions (plan.Expr) into evaluators that run over
// Arrow record batches. An expression is compiled once per operator and evaluated once per
// batch; column references bind by position.
//
// Functions map to arrow-go compute kernels where arrow-go has them and they behave
// (comparisons, checked add/subtract/multiply, Kleene AND/OR, NOT, casts) and to exec/kernel
// otherwise (divide, modulus, negate, IS [NOT] NULL, LIKE, COALESCE, CASE, float-to-integer
// casts, the string/math/date functions of kernel.LookupScalar, date arithmetic,
// current_date and current_timestamp), and to exec/kernel's typed loops where they are
// faster (comparisons of int32, date32, int64, float64 and decimal columns, decimal
// arithmetic, decimal to float64 casts). CASE evaluates each branch only on the rows that
// reach it, as DuckDB does, so a guarded division by zero does not fail. Fixed-width
// literals are broadcast once per evaluator and handed out as slices.
package expr

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Evaluator evaluates one compiled expression. It is safe for concurrent use.
type Evaluator interface {
	// Eval computes the expression over every row of b. The result has b.NumRows() rows
	// and the expression's type; the caller must Release it.
	Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error)
	// Type is the result type.
	Type() arrow.DataType
}

// Compile compiles e. Every buffer an evaluation allocates comes from mem.
func Compile(e plan.Expr, mem memory.Allocator) (Evaluator, error) {
	switch e := e.(type) {
	case *plan.ColumnRef:
		return &columnEval{idx: e.Index, dt: e.DataType}, nil
	case *plan.Literal:
		return &literalEval{val: e.Value, mem: mem}, nil
	case *plan.Cast:
		return compileCast(e, mem)
	case *plan.Call:
		return compileCall(e, mem)
	case nil:
		return nil, dberr.New(dberr.Internal, "compile: nil expression")
	}
	return nil, dberr.NotSupported(fmt.Sprintf("expression %T", e))
}

// CompileAll compiles each expression of es.
func CompileAll(es []plan.Expr, mem memory.Allocator) ([]Evaluator, error) {
	out := make([]Evaluator, len(es))
	for i, e := range es {
		ev, err := Compile(e, mem)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

type columnEval struct {
	idx int
	dt  arrow.DataType
}

func (c *columnEval) Type() arrow.DataType { return c.dt }

func (c *columnEval) Eval(_ context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	if c.idx < 0 || c.idx >= int(b.NumCols()) {
		return nil, dberr.New(dberr.Internal, "column #%d out of range: batch has %d columns", c.idx, b.NumCols())
	}
	col := b.Column(c.idx)
	if !arrow.TypeEqual(col.DataType(), c.dt) {
		return nil, dberr.New(dberr.Internal, "column #%d has type %s, plan says %s", c.idx, col.DataType(), c.dt)
	}
	col.Retain()
	return col, nil
}

type literalEval struct {
	val scalar.Scalar
	mem memory.Allocator
	// cache is a fixed-width value broadcast to maxCachedLiteralRows rows, built on first use from Go
	// memory (not mem: an evaluator has no Close, so it could never be freed there); batches
	// get slices of it.
	once  sync.Once
	cache arrow.Array
}

// maxCachedLiteralRows bounds the cached broadcast of a literal; longer batches get a fresh
// array.
const maxCachedLiteralRows = 64 << 10

func (l *literalEval) Type() arrow.DataType { return l.val.DataType() }

func (l *literalEval) Eval(_ context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	if !l.val.IsValid() {
		return kernel.ArrayOfNull(l.mem, l.val.DataType(), n), nil // structs with NULL fields too
	}
	if _, fixed := l.val.DataType().(arrow.FixedWidthDataType); fixed && n <= maxCachedLiteralRows {
		l.once.Do(func() {
			if arr, err := scalar.MakeArrayFromScalar(l.val, maxCachedLiteralRows, memory.DefaultAllocator); err == nil {
				l.cache = arr
			}
		})
		if l.cache != nil {
			return array.NewSlice(l.cache, 0, int64(n)), nil
		}
	}
	arr, err := scalar.MakeArrayFromScalar(l.val, n, l.mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "broadcast literal %s", l.val)
	}
	return arr, nil
}

// evalArgs evaluates every argument; on error it releases what it evaluated.
func evalArgs(ctx context.Context, args []Evaluator, b arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(args))
	for _, a := range args {
		v, err := a.Eval(ctx, b)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// callCompute runs an arrow-go compute function over arrays and returns an array.
func callCompute(ctx context.Context, mem memory.Allocator, name string, opts compute.FunctionOptions, args ...arrow.Array) (arrow.Array, error) {
	ds := make([]compute.Datum, len(args))
	for i, a := range args {
		ds[i] = compute.NewDatumWithoutOwning(a)
	}
	out, err := compute.CallFunction(compute.WithAllocator(ctx, mem), name, opts, ds...)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return datumArray(out, mem)
}

// datumArray turns a compute result into one array owned by the caller.
func datumArray(d compute.Datum, mem memory.Allocator) (arrow.Array, error) {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		return d.MakeArray(), nil
	case *compute.ChunkedDatum:
		return array.Concatenate(d.Value.Chunks(), mem)
	}
	return nil, dberr.New(dberr.Internal, "compute returned %s, want an array", d.Kind())
}

// FilterBatch keeps the rows of b where mask (a NULL-free boolean array with nTrue true
// rows) is true. It works for batches without columns too. The caller releases the result.
func FilterBatch(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, mask arrow.Array, nTrue int) (arrow.RecordBatch, error) {
	idx, err := kernel.MaskIndices(mem, mask, nTrue)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	return TakeBatch(ctx, mem, b, idx)
}

// TakeBatch returns the rows of b at the positions in idx (an integer array without NULLs).
// The caller releases the result.
func TakeBatch(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, idx arrow.Array) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, b.NumCols())
	for _, c := range b.Columns() {
		t, err := compute.TakeArray(compute.WithAllocator(ctx, mem), c, idx)
		if err != nil {
			releaseAll(cols)
			return nil, dberr.Wrap(dberr.Internal, err, "take rows")
		}
		cols = append(cols, t)
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(idx.Len()))
	releaseAll(cols)
	return out, nil
}
