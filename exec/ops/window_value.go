package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// windowTake returns src's rows at idx, NULL where idx is negative.
func windowTake(ctx context.Context, env exec.Env, src arrow.Array, idx []int64) (arrow.Array, error) {
	ia := kernel.NewFixed[int64](env.Mem, arrow.PrimitiveTypes.Int64, len(idx))
	for i, r := range idx {
		if r < 0 {
			ia.SetNull(i)
			continue
		}
		ia.Values[i] = r
	}
	arr := ia.Finish()
	defer arr.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, env.Mem), src, arr)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "window: take values")
	}
	return out, nil
}

// valueArg evaluates f's first argument, the value that navigation functions return.
func valueArg(ctx context.Context, env exec.Env, all arrow.RecordBatch, f plan.WindowFunc) (arrow.Array, error) {
	if len(f.Args) == 0 {
		return nil, dberr.New(dberr.Binder, "%s needs an argument", f.Func)
	}
	return evalExpr(ctx, env, all, f.Args[0])
}

// lagLead builds lag (dir -1) and lead (dir 1): the value offset rows (default 1) before or
// after the current row in its partition, else the default (third argument, evaluated at
// the current row) or NULL. Frames do not apply; a NULL offset gives NULL. With IGNORE NULLS
// the offset counts non-NULL values only (offset 0 is the current row).
func lagLead(dir int64) windowFn {
	return func(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error) {
		x, err := valueArg(ctx, env, all, f)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		offArr, getOff, err := intArg(ctx, env, all, f, 1)
		if err != nil {
			return nil, err
		}
		if offArr != nil {
			defer offArr.Release()
		}
		src, hasDefault, err := withDefault(ctx, env, all, f, x)
		if err != nil {
			return nil, err
		}
		defer src.Release()
		var nn *nonNulls
		if f.IgnoreNulls {
			nn = newNonNulls(l, x)
		}
		limit := int64(l.n) + 1
		idx := make([]int64, l.n)
		for i, row := range l.perm {
			off := int64(1)
			if offArr != nil {
				if !kernel.IsValid(offArr, int(row)) {
					idx[row] = -1
					continue
				}
				off = max(-limit, min(limit, getOff(int(row))))
			}
			j := int64(i) + dir*off
			if nn != nil {
				j = nn.step(l, i, dir*off)
			}
			switch {
			case j >= int64(l.partStart[i]) && j < int64(l.partEnd[i]):
				idx[row] = int64(l.perm[j])
			case hasDefault:
				idx[row] = int64(l.n) + int64(row)
			default:
				idx[row] = -1
			}
		}
		return windowTake(ctx, env, src, idx)
	}
}

// nonNulls indexes the positions whose value is not NULL, for IGNORE NULLS: before[j] is
// the number of such positions before position j, at[k] the k-th of them.
type nonNulls struct {
	before []int32
	at     []int32
}

func newNonNulls(l *windowLayout, x arrow.Array) *nonNulls {
	nn := &nonNulls{before: make([]int32, l.n+1)}
	for j, row := range l.perm {
		nn.before[j+1] = nn.before[j]
		if kernel.IsValid(x, int(row)) {
			nn.before[j+1]++
			nn.at = append(nn.at, int32(j))
		}
	}
	return nn
}

// step returns the position d non-NULL values after (d < 0: before) position i in its
// partition, i itself for d = 0, or -1.
func (nn *nonNulls) step(l *windowLayout, i int, d int64) int64 {
	var k int64
	switch {
	case d == 0:
		return int64(i)
	case d < 0:
		k = int64(nn.before[i]) + d
	default:
		k = int64(nn.before[i+1]) + d - 1
	}
	if k < int64(nn.before[l.partStart[i]]) || k >= int64(nn.before[l.partEnd[i]]) {
		return -1
	}
	return int64(nn.at[k])
}

// nth returns the position of the n-th (1-based) non-NULL value of frame [s, e), or -1.
func (nn *nonNulls) nth(s, e, n int64) int64 {
	k := int64(nn.before[s]) + n - 1
	if n < 1 || s >= e || k >= int64(nn.before[e]) {
		return -1
	}
	return int64(nn.at[k])
}

// withDefault returns x followed by lag/lead's default values (cast to x's type) when f has
// a third argument, else x itself (retained).
func withDefault(ctx context.Context, env exec.Env, all arrow.RecordBatch, f plan.WindowFunc, x arrow.Array) (arrow.Array, bool, error) {
	if len(f.Args) < 3 {
		x.Retain()
		return x, false, nil
	}
	d, err := evalExpr(ctx, env, all, f.Args[2])
	if err != nil {
		return nil, false, err
	}
	if d, err = castTo(ctx, env, d, x.DataType()); err != nil {
		return nil, false, err
	}
	defer d.Release()
	src, err := array.Concatenate([]arrow.Array{x, d}, env.Mem)
	if err != nil {
		return nil, false, dberr.Wrap(dberr.Internal, err, "%s: concatenate default values", f.Func)
	}
	return src, true, nil
}

// frameValue computes first_value, last_value and nth_value (1-based; NULL when the frame
// is shorter or n is NULL or below 1) over each row's frame; with IGNORE NULLS they count
// only the frame's non-NULL values.
func frameValue(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error) {
	fs, fe, err := frameBounds(ctx, env, all, l, f.Frame)
	if err != nil {
		return nil, err
	}
	x, err := valueArg(ctx, env, all, f)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	var nArr arrow.Array
	var getN func(int) int64
	if f.Func == "nth_value" {
		if nArr, getN, err = intArg(ctx, env, all, f, 1); err != nil {
			return nil, err
		}
		if nArr == nil {
			return nil, dberr.New(dberr.Binder, "nth_value needs two arguments")
		}
		defer nArr.Release()
	}
	var nn *nonNulls
	if f.IgnoreNulls {
		nn = newNonNulls(l, x)
	}
	idx := make([]int64, l.n)
	for i, row := range l.perm {
		s, e := int64(fs[i]), int64(fe[i])
		n := int64(0) // 1-based; 0: none
		switch f.Func {
		case "first_value":
			n = 1
		case "last_value":
			n = e - s
			if nn != nil && s < e {
				n = int64(nn.before[e] - nn.before[s])
			}
		default:
			if kernel.IsValid(nArr, int(row)) && getN(int(row)) >= 1 {
				n = min(getN(int(row)), int64(l.n)+1)
			}
		}
		p := s + n - 1
		if nn != nil {
			p = nn.nth(s, e, n)
		}
		if s >= e || n < 1 || p < s || p >= e {
			idx[row] = -1
			continue
		}
		idx[row] = int64(l.perm[p])
	}
	return windowTake(ctx, env, x, idx)
}
