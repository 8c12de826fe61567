package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Struct values: struct_pack builds a struct from its arguments (the field names come
// from the call's type), struct_extract reads a field. Comparisons and IS [NOT] DISTINCT
// FROM of structs and lists run kernel.CompareNested; other types keep their kernels.
func init() {
	scalarFuncs["struct_extract"] = funcDef{fn: structExtractFunc, min: 2, max: 2}
	scalarFuncs["list_extract"] = funcDef{fn: listExtractFunc, min: 2, max: 2}
	for plan, kernelName := range map[string]string{
		"equal": "equal", "not_equal": "not_equal", "lt": "less", "lte": "less_equal",
		"gt": "greater", "gte": "greater_equal",
		"is_distinct_from": "is_distinct_from", "is_not_distinct_from": "is_not_distinct_from",
	} {
		def, ok := lookupFunc(plan)
		if !ok {
			continue
		}
		def.fn = nestedCompare(kernelName, def.fn)
		def.strict = def.strict && plan != "is_distinct_from" && plan != "is_not_distinct_from"
		scalarFuncs[plan] = def
	}
}

// structExtractFunc is struct_extract(s, 'name'); the name argument is a constant.
func structExtractFunc(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if args[1].Len() == 0 {
		return kernel.StructExtract(mem, args[0], "")
	}
	name := args[1].ValueStr(0)
	return kernel.StructExtract(mem, args[0], name)
}

// listExtractFunc is list_extract(l, i), l[i].
func listExtractFunc(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	return kernel.ListExtract(ctx, mem, args[0], args[1])
}

// nestedCompare runs kernel.CompareNested when the operands are structs or lists, fn
// otherwise.
func nestedCompare(name string, fn scalarFunc) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		if !kernel.IsNested(args[0].DataType()) {
			return fn(ctx, mem, args)
		}
		if !arrow.TypeEqual(args[0].DataType(), args[1].DataType()) {
			return nil, dberr.New(dberr.Internal, "%s over %s and %s", name, args[0].DataType(), args[1].DataType())
		}
		return kernel.CompareNested(mem, name, args[0], args[1])
	}
}

// structPackEval evaluates struct_pack: every argument, then one struct over them.
type structPackEval struct {
	args []Evaluator
	dt   *arrow.StructType
}

func (s *structPackEval) Type() arrow.DataType { return s.dt }

func (s *structPackEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	fields, err := evalArgs(ctx, s.args, b)
	if err != nil {
		return nil, err
	}
	defer releaseAll(fields)
	return kernel.StructPack(s.dt, fields, int(b.NumRows()))
}

func compileStructPack(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	dt, ok := c.DataType.(*arrow.StructType)
	if !ok || dt.NumFields() != len(c.Args) {
		return nil, dberr.New(dberr.Internal, "struct_pack of %d arguments typed %s", len(c.Args), c.DataType)
	}
	args, err := CompileAll(c.Args, mem)
	if err != nil {
		return nil, err
	}
	return &structPackEval{args: args, dt: dt}, nil
}
