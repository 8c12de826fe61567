package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
)

// windowFold computes any aggregate the hash Aggregate supports (and DISTINCT aggregates)
// by folding each row's frame into that row's own accumulator group: O(frame size) per
// row, so quadratic for running frames; count, sum, avg, min and max without DISTINCT take
// the faster paths of window_agg.go instead.
func windowFold(ctx context.Context, env exec.Env, l *windowLayout, in *aggInput, fs, fe []int32) (arrow.Array, error) {
	var argType arrow.DataType
	if in.arg != nil {
		argType = in.arg.DataType()
	}
	acc, err := newAccumulator(in.call, argType, env.Mem)
	if err != nil {
		return nil, err
	}
	if r, ok := acc.(releaser); ok {
		defer r.release()
	}
	acc.resize(l.n)
	var sorted arrow.Array // the argument in position order
	if in.arg != nil {
		perm := make([]int64, l.n)
		for j, row := range l.perm {
			perm[j] = int64(row)
		}
		if sorted, err = windowTake(ctx, env, in.arg, perm); err != nil {
			return nil, err
		}
		defer sorted.Release()
	}
	var include []bool // in position order
	if in.include != nil {
		include = make([]bool, l.n)
		for j, row := range l.perm {
			include[j] = in.include[row]
		}
	}
	d, err := newFrameDistinct(in, sorted)
	if err != nil {
		return nil, err
	}
	groups := make([]int32, 0, 64)
	for i, row := range l.perm {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s, e := int(fs[i]), int(fe[i])
		if s >= e {
			continue
		}
		groups = groups[:0]
		for range e - s {
			groups = append(groups, row)
		}
		var inc []bool
		if include != nil {
			inc = include[s:e]
		}
		if d != nil {
			inc = d.mask(sorted, include, s, e)
		}
		var part arrow.Array
		if sorted != nil {
			part = array.NewSlice(sorted, int64(s), int64(e))
		}
		err := acc.update(groups, part, inc)
		if part != nil {
			part.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	return acc.finish(env.Mem, in.call.DataType)
}

// frameDistinct narrows a frame to the first occurrence of every value (DISTINCT).
type frameDistinct struct {
	enc       kernel.KeyEncoder
	keepNulls bool
	seen      map[string]struct{}
	buf       []byte
	out       []bool
}

func newFrameDistinct(in *aggInput, sorted arrow.Array) (*frameDistinct, error) {
	if !in.call.Distinct || sorted == nil {
		return nil, nil
	}
	enc, err := kernel.NewKeyEncoder(sorted)
	if err != nil {
		return nil, err
	}
	return &frameDistinct{enc: enc, keepNulls: keepsNulls(in.call.Func), seen: map[string]struct{}{}}, nil
}

// mask returns, for positions [s, e), which rows hold a value not seen earlier in the frame.
func (d *frameDistinct) mask(sorted arrow.Array, include []bool, s, e int) []bool {
	clear(d.seen)
	d.out = append(d.out[:0], make([]bool, e-s)...)
	for j := s; j < e; j++ {
		if (include != nil && !include[j]) || (!d.keepNulls && !kernel.IsValid(sorted, j)) {
			continue
		}
		d.buf = d.enc(d.buf[:0], j)
		if _, dup := d.seen[string(d.buf)]; !dup {
			d.seen[string(d.buf)] = struct{}{}
			d.out[j-s] = true
		}
	}
	return d.out
}
