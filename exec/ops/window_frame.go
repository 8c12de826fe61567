package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// defaultFrame is the SQL default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW,
// which is the whole partition when there is no ORDER BY (every row is a peer).
var defaultFrame = plan.Frame{Unit: plan.FrameRange,
	Start: plan.FrameBound{Kind: plan.UnboundedPreceding}, End: plan.FrameBound{Kind: plan.CurrentRow}}

// frameBounds returns every position's frame as positions [fs[i], fe[i]); the frame is
// empty when fs[i] >= fe[i]. Frames never leave their partition.
func frameBounds(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, frame *plan.Frame) ([]int32, []int32, error) {
	fr := defaultFrame
	if frame != nil {
		fr = *frame
	}
	fs, fe := make([]int32, l.n), make([]int32, l.n)
	if err := l.fillBound(ctx, env, all, fr.Unit, fr.Start, false, fs); err != nil {
		return nil, nil, err
	}
	if err := l.fillBound(ctx, env, all, fr.Unit, fr.End, true, fe); err != nil {
		return nil, nil, err
	}
	return fs, fe, nil
}

// fillBound sets out[i] to position i's frame start (or, isEnd, one past its frame end).
func (l *windowLayout) fillBound(ctx context.Context, env exec.Env, all arrow.RecordBatch, unit plan.FrameUnit, b plan.FrameBound, isEnd bool, out []int32) error {
	switch b.Kind {
	case plan.UnboundedPreceding:
		copy(out, l.partStart)
		return nil
	case plan.UnboundedFollowing:
		copy(out, l.partEnd)
		return nil
	case plan.CurrentRow:
		for i := range out {
			switch {
			case unit == plan.FrameRows && isEnd:
				out[i] = int32(i + 1)
			case unit == plan.FrameRows:
				out[i] = int32(i)
			case isEnd:
				out[i] = int32(l.peerEnd(i))
			default:
				out[i] = int32(l.peerBegin(i))
			}
		}
		return nil
	}
	if b.Offset == nil {
		return dberr.New(dberr.Internal, "window frame bound without an offset")
	}
	offs, err := evalExpr(ctx, env, all, b.Offset)
	if err != nil {
		return err
	}
	defer offs.Release()
	if unit == plan.FrameRange {
		return l.fillRangeBound(ctx, env, b.Kind, isEnd, offs, out)
	}
	return l.fillCountBound(unit, b.Kind, isEnd, offs, out)
}

// evalExpr evaluates e over all.
func evalExpr(ctx context.Context, env exec.Env, all arrow.RecordBatch, e plan.Expr) (arrow.Array, error) {
	ev, err := expr.Compile(e, env.Mem)
	if err != nil {
		return nil, err
	}
	return ev.Eval(ctx, all)
}

// countOffsets reads ROWS/GROUPS offsets: non-negative, non-NULL integers.
func countOffsets(unit plan.FrameUnit, kind plan.BoundKind, offs arrow.Array, n int) (func(int) int64, error) {
	what := "ROWS"
	if unit == plan.FrameGroups {
		what = "GROUPS"
	}
	dir := "PRECEDING"
	if kind == plan.Following {
		dir = "FOLLOWING"
	}
	if !arrow.IsInteger(offs.DataType().ID()) {
		return nil, dberr.New(dberr.Binder, "window %s %s offset must be an integer, not %s", what, dir, offs.DataType())
	}
	var get func(int) int64
	if k, _ := kindOf(offs.DataType()); k == kindUnsigned {
		u := unsignedGetter(offs)
		get = func(r int) int64 { return int64(min(u(r), uint64(n)+1)) }
	} else {
		get = signedGetter(offs)
	}
	for r := range offs.Len() {
		if !kernel.IsValid(offs, r) {
			return nil, dberr.New(dberr.InvalidInput, "Window %s %s expression cannot be NULL", what, dir)
		}
		if get(r) < 0 {
			return nil, dberr.New(dberr.InvalidInput, "Window %s %s expression cannot be negative", what, dir)
		}
	}
	return func(r int) int64 { return min(get(r), int64(n)+1) }, nil
}

// fillCountBound computes offset bounds of ROWS and GROUPS frames.
func (l *windowLayout) fillCountBound(unit plan.FrameUnit, kind plan.BoundKind, isEnd bool, offs arrow.Array, out []int32) error {
	get, err := countOffsets(unit, kind, offs, l.n)
	if err != nil {
		return err
	}
	sign := int64(1)
	if kind == plan.Preceding {
		sign = -1
	}
	for i := range out {
		ps, pe := int64(l.partStart[i]), int64(l.partEnd[i])
		k := sign * get(int(l.perm[i]))
		if unit == plan.FrameRows {
			p := int64(i) + k
			if isEnd {
				p++
			}
			out[i] = int32(max(ps, min(pe, p)))
			continue
		}
		g := int64(l.peerIdx[i]) + k
		first, last := int64(l.peerIdx[ps]), int64(l.peerIdx[pe-1])
		switch {
		case g < first:
			out[i] = int32(ps)
		case g > last:
			out[i] = int32(pe)
		case isEnd:
			out[i] = l.peerStart[g+1]
		default:
			out[i] = l.peerStart[g]
		}
	}
	return nil
}
