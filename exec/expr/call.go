package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// scalarFunc computes a function over evaluated arguments of equal length n.
type scalarFunc func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error)

// funcDef is a scalar function with its arity bounds: minimum and maximum number of
// arguments (-1: unbounded). A strict function returns NULL whenever an argument is NULL, so
// an argument of type NULL makes the whole result NULL without running the kernel.
type funcDef struct {
	fn       scalarFunc
	min, max int
	strict   bool
}

var scalarFuncs = map[string]funcDef{
	"equal":       {compareFunc("equal"), 2, 2, true},
	"not_equal":   {compareFunc("not_equal"), 2, 2, true},
	"lt":          {compareFunc("less"), 2, 2, true},
	"lte":         {compareFunc("less_equal"), 2, 2, true},
	"gt":          {compareFunc("greater"), 2, 2, true},
	"gte":         {compareFunc("greater_equal"), 2, 2, true},
	"and":         {foldFunc("and_kleene"), 1, -1, false},
	"or":          {foldFunc("or_kleene"), 1, -1, false},
	"not":         {notFunc, 1, 1, false},
	"is_null":     {isNullFunc(false), 1, 1, false},
	"is_not_null": {isNullFunc(true), 1, 1, false},
	"add":         {arithFunc("add", kernel.OpAdd), 2, 2, true},
	"subtract":    {arithFunc("subtract", kernel.OpSubtract), 2, 2, true},
	"multiply":    {arithFunc("multiply", kernel.OpMultiply), 2, 2, true},
	"divide":      {divideFunc, 2, 2, true},
	"modulus":     {ownFunc2(kernel.Modulus), 2, 2, true},
	"negate":      {negateFunc, 1, 1, true},
	"coalesce":    {coalesceFunc, 1, -1, false},
}

// callEval evaluates every argument, then the function.
type callEval struct {
	name   string
	fn     scalarFunc
	strict bool
	args   []Evaluator
	dt     arrow.DataType
	mem    memory.Allocator
}

func compileCall(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	switch c.Func {
	case "case":
		return compileCase(c, mem)
	case "like":
		return compileLike(c, mem)
	case "struct_pack":
		return compileStructPack(c, mem) // struct.go
	case "list_value":
		return compileListValue(c, mem) // list_value.go
	}
	if op, ok := kernel.LookupVectorOp(c.Func); ok {
		return compileVector(c, op, mem)
	}
	def, ok := lookupFunc(c.Func)
	if !ok {
		return compileNow(c, mem)
	}
	if len(c.Args) < def.min || (def.max >= 0 && len(c.Args) > def.max) {
		return nil, dberr.New(dberr.Internal, "%s: %d arguments", c.Func, len(c.Args))
	}
	args, err := CompileAll(c.Args, mem)
	if err != nil {
		return nil, err
	}
	ev := &callEval{name: c.Func, fn: def.fn, strict: def.strict, args: args, dt: c.DataType, mem: mem}
	return compileStrConstCompare(c, ev, mem) // compare_const.go
}

// lookupFunc finds a function: the core ones here, then exec/kernel's string, math and date
// functions.
func lookupFunc(name string) (funcDef, bool) {
	if def, ok := scalarFuncs[name]; ok {
		return def, true
	}
	k, ok := kernel.LookupScalar(name)
	if !ok {
		return funcDef{}, false
	}
	fn := func(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return k.Fn(mem, args)
	}
	return funcDef{fn: fn, min: k.Min, max: k.Max, strict: k.Strict}, true
}

func (c *callEval) Type() arrow.DataType { return c.dt }

func (c *callEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalArgs(ctx, c.args, b)
	if err != nil {
		return nil, err
	}
	defer releaseAll(args)
	if c.strict {
		for _, a := range args {
			if a.DataType().ID() == arrow.NULL {
				return kernel.ArrayOfNull(c.mem, c.dt, int(b.NumRows())), nil
			}
		}
	}
	out, err := c.fn(ctx, c.mem, args)
	if err != nil {
		return nil, err
	}
	return conform(ctx, c.mem, out, c.dt)
}

// conform casts out to dt when a kernel returned a different (wider) type, as
// kernel.DecimalArith does (decimal(38, s) narrowed to the planned precision, checked). It
// takes ownership of out.
func conform(ctx context.Context, mem memory.Allocator, out arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if dt == nil || arrow.TypeEqual(out.DataType(), dt) {
		return out, nil
	}
	defer out.Release()
	if narrowed, ok := kernel.NarrowDecimal(out, dt); ok {
		return narrowed, nil
	}
	if kernel.IsDecimalCast(out.DataType(), dt) {
		return kernel.CastDecimal(mem, out, dt, false)
	}
	res, err := compute.CastArray(compute.WithAllocator(ctx, mem), out, compute.SafeCastOptions(dt))
	if err != nil {
		return nil, dberr.Wrap(dberr.Conversion, err, "cast result of type %s to %s", out.DataType(), dt)
	}
	return res, nil
}

func computeFunc(name string) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		out, err := callCompute(ctx, mem, name, nil, args...)
		if err != nil {
			return nil, computeErr(name, args, err)
		}
		return out, nil
	}
}

// compareFunc is a comparison: exec/kernel's for booleans and (CompareFast) the common
// fixed-width types, arrow's kernels otherwise.
func compareFunc(name string) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		if args[0].DataType().ID() == arrow.BOOL {
			return kernel.CompareBools(mem, name, args[0], args[1])
		}
		if out, ok := kernel.CompareFast(mem, name, args[0], args[1]); ok {
			return out, nil
		}
		return computeFunc(name)(ctx, mem, args)
	}
}

// foldFunc applies a binary compute function left to right over any number of arguments.
func foldFunc(name string) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		acc := args[0]
		acc.Retain()
		for _, a := range args[1:] {
			next, err := callCompute(ctx, mem, name, nil, acc, a)
			acc.Release()
			if err != nil {
				return nil, computeErr(name, args, err)
			}
			acc = next
		}
		return acc, nil
	}
}

// arithFunc is add, subtract or multiply: exec/kernel's overflow-checked loops for
// integers and floats (arrow's checked kernels also check the junk under NULL slots, and
// fail on it), kernel.DecimalArith for decimals (exact, DuckDB's overflow error),
// kernel.DateArith for dates, timestamps and intervals.
func arithFunc(name string, op int) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		if (op == kernel.OpAdd || op == kernel.OpSubtract) && kernel.IsTemporalArith(args[0].DataType(), args[1].DataType()) {
			return kernel.DateArith(mem, op, args[0], args[1])
		}
		out, ok, err := kernel.Arith(mem, op, args[0], args[1])
		if !ok {
			out, ok, err = kernel.DecimalArith(mem, op, args[0], args[1])
		}
		if ok {
			return out, err
		}
		return computeFunc(name)(ctx, mem, args)
	}
}

// notFunc is NOT: NULL stays NULL. (arrow-go v18.8.0's "not" ignores the offset of a sliced
// array's validity bitmap, so it is done here.)
func notFunc(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	return kernel.Not(mem, args[0])
}

// isNullFunc is IS NULL (or IS NOT NULL when negate).
func isNullFunc(negate bool) scalarFunc {
	return func(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return kernel.IsNull(mem, args[0], negate), nil
	}
}

func ownFunc2(fn func(memory.Allocator, arrow.Array, arrow.Array) (arrow.Array, error)) scalarFunc {
	return func(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return fn(mem, args[0], args[1])
	}
}

func divideFunc(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if isDecimal(args[0].DataType()) {
		return computeFunc("divide")(ctx, mem, args)
	}
	return kernel.Divide(mem, args[0], args[1])
}

func negateFunc(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if isDecimal(args[0].DataType()) {
		return computeFunc("negate")(ctx, mem, args)
	}
	return kernel.Negate(mem, args[0])
}

func isDecimal(dt arrow.DataType) bool {
	return dt.ID() == arrow.DECIMAL128 || dt.ID() == arrow.DECIMAL256
}

// computeErr classifies an error from arrow's compute.
func computeErr(name string, args []arrow.Array, err error) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = a.DataType().String()
	}
	what := fmt.Sprintf("%s(%s)", name, strings.Join(types, ", "))
	if errors.Is(err, arrow.ErrNotImplemented) || errors.Is(err, arrow.ErrNotFound) {
		return dberr.Wrap(dberr.NotImplemented, err, "not supported yet: %s", what)
	}
	return dberr.Wrap(dberr.Internal, err, "evaluate %s", what)
}
