package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// windowFn computes one ranking or navigation function; the result is in input row order.
type windowFn func(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error)

// rankingFuncs are the window functions that are not aggregates.
var rankingFuncs map[string]windowFn

func init() {
	rankingFuncs = map[string]windowFn{
		"row_number":   rankInts(func(l *windowLayout, i int) int64 { return int64(i-int(l.partStart[i])) + 1 }),
		"rank":         rankInts(func(l *windowLayout, i int) int64 { return int64(l.peerBegin(i)-int(l.partStart[i])) + 1 }),
		"dense_rank":   rankInts(func(l *windowLayout, i int) int64 { return int64(l.peerIdx[i]-l.peerIdx[l.partStart[i]]) + 1 }),
		"percent_rank": rankFloats(percentRank),
		"cume_dist":    rankFloats(cumeDist),
		"ntile":        ntile,
		"lag":          lagLead(-1),
		"lead":         lagLead(1),
		"first_value":  frameValue,
		"last_value":   frameValue,
		"nth_value":    frameValue,
	}
}

func percentRank(l *windowLayout, i int) float64 {
	size := l.partEnd[i] - l.partStart[i]
	if size <= 1 {
		return 0
	}
	return float64(l.peerBegin(i)-int(l.partStart[i])) / float64(size-1)
}

func cumeDist(l *windowLayout, i int) float64 {
	return float64(l.peerEnd(i)-int(l.partStart[i])) / float64(l.partEnd[i]-l.partStart[i])
}

// rankInts builds a BIGINT ranking function from its value at a position.
func rankInts(val func(l *windowLayout, i int) int64) windowFn {
	return func(_ context.Context, env exec.Env, _ arrow.RecordBatch, l *windowLayout, _ plan.WindowFunc) (arrow.Array, error) {
		out := kernel.NewFixed[int64](env.Mem, arrow.PrimitiveTypes.Int64, l.n)
		for i, row := range l.perm {
			out.Values[row] = val(l, i)
		}
		return out.Finish(), nil
	}
}

// rankFloats builds a DOUBLE ranking function from its value at a position.
func rankFloats(val func(l *windowLayout, i int) float64) windowFn {
	return func(_ context.Context, env exec.Env, _ arrow.RecordBatch, l *windowLayout, _ plan.WindowFunc) (arrow.Array, error) {
		out := kernel.NewFixed[float64](env.Mem, arrow.PrimitiveTypes.Float64, l.n)
		for i, row := range l.perm {
			out.Values[row] = val(l, i)
		}
		return out.Finish(), nil
	}
}

// intArg evaluates argument i of f (nil when absent) as integers read per input row.
func intArg(ctx context.Context, env exec.Env, all arrow.RecordBatch, f plan.WindowFunc, i int) (arrow.Array, func(int) int64, error) {
	if len(f.Args) <= i {
		return nil, nil, nil
	}
	arr, err := evalExpr(ctx, env, all, f.Args[i])
	if err != nil {
		return nil, nil, err
	}
	switch k, _ := kindOf(arr.DataType()); {
	case arr.DataType().ID() == arrow.NULL:
		return arr, func(int) int64 { return 0 }, nil
	case !arrow.IsInteger(arr.DataType().ID()):
		arr.Release()
		return nil, nil, dberr.New(dberr.Binder, "%s: argument %d must be an integer, not %s", f.Func, i+1, arr.DataType())
	case k == kindUnsigned:
		get := unsignedGetter(arr)
		return arr, func(r int) int64 { return int64(min(get(r), 1<<62)) }, nil
	}
	return arr, signedGetter(arr), nil
}

// ntile splits each partition into n buckets as evenly as possible, the larger ones first.
func ntile(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error) {
	arr, get, err := intArg(ctx, env, all, f, 0)
	if err != nil {
		return nil, err
	}
	if arr == nil {
		return nil, dberr.New(dberr.Binder, "ntile needs an argument")
	}
	defer arr.Release()
	out := kernel.NewFixed[int64](env.Mem, arrow.PrimitiveTypes.Int64, l.n)
	for i, row := range l.perm {
		if !kernel.IsValid(arr, int(row)) {
			out.SetNull(int(row))
			continue
		}
		buckets := get(int(row))
		if buckets <= 0 {
			out.Release()
			return nil, dberr.New(dberr.InvalidInput, "Argument for ntile must be greater than zero")
		}
		ps := int64(l.partStart[i])
		total := int64(l.partEnd[i]) - ps
		buckets = min(buckets, total)
		size := total / buckets
		large := total - buckets*size // buckets holding size+1 rows
		inLarge := large * (size + 1)
		pos := int64(i) - ps
		if pos < inLarge {
			out.Values[row] = 1 + pos/(size+1)
		} else {
			out.Values[row] = 1 + large + (pos-inLarge)/size
		}
	}
	return out.Finish(), nil
}
