package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// Late materialization: the scan hands the reader a catalog.Prefilter made of its run-time
// join filters and the leading conjuncts of its filter that read a strict subset of its
// columns. A reader that applies it (catalog.Prefiltered) decodes those columns first and
// the others only at the rows they keep; the scan then applies only the rest of its filter
// to that reader's batches (nothing, when the prefilter is the whole filter). Other readers
// get the whole filter, as without a prefilter.

// lateMaxKept is the fraction of a batch's rows above which the reader decodes the other
// columns in full and takes the kept rows instead of decoding only the kept rows.
// Measured per 16Ki-row batch on TPC-H SF1 lineitem (file.Cursor.ReadSel against
// ReadRange): FSST strings (l_comment) cost 0.6x at 2-5% kept and 0.8x at 10%; dictionary
// strings and bit-packed integers break even at 2-5% and cost 1.2-1.4x at 10% (the chunk's
// values are unpacked either way).
const lateMaxKept = 0.05

// lateFilter is the scan's prefilter and the filter left for the readers that apply it.
type lateFilter struct {
	pre  *catalog.Prefilter
	rest *predicate // the conjuncts after the prefilter's; nil when there are none
}

// latePrefix returns the number of leading conjuncts of the filter the prefilter takes
// and the output columns they and the run-time filters read (in prefilter order), or 0
// and nil when late materialization would not pay or cannot apply: an index scan, a run-
// time filter on a hidden row column, or filter columns covering every column read.
func (s *Scan) latePrefix() (int, []int) {
	if s.req.Index != nil || (s.filter == nil && len(s.rfs) == 0) {
		return 0, nil
	}
	var cols []int
	add := func(c int) {
		for _, x := range cols {
			if x == c {
				return
			}
		}
		cols = append(cols, c)
	}
	for _, t := range s.rfs {
		if t.col >= len(s.req.Columns) {
			return 0, nil
		}
		add(t.col)
	}
	var all []plan.Expr
	if s.filter != nil {
		all = conjuncts(s.filter)
	}
	lead := 0
	for _, c := range all {
		before := len(cols)
		hidden := false
		plan.Columns(c, func(r *plan.ColumnRef) {
			if r.Index >= len(s.req.Columns) {
				hidden = true
				return
			}
			add(r.Index)
		})
		if hidden || len(cols) >= len(s.req.Columns) {
			cols = cols[:before]
			break
		}
		lead++
	}
	if len(cols) == 0 || len(cols) >= len(s.req.Columns) || (lead == 0 && len(s.rfs) == 0) {
		return 0, nil
	}
	return lead, cols
}

// LateColumns returns how many of the scan's table columns its prefilter reads and how
// many it reads in all (0, 0 without late materialization), for EXPLAIN.
func (s *Scan) LateColumns() (filter, total int) {
	_, cols := s.latePrefix()
	if cols == nil {
		return 0, 0
	}
	return len(cols), len(s.req.Columns)
}

// newLateFilter builds the scan's prefilter, or returns nil.
func (s *Scan) newLateFilter() (*lateFilter, error) {
	lead, cols := s.latePrefix()
	if cols == nil {
		return nil, nil
	}
	pos := make(map[int]int, len(cols))
	for i, c := range cols {
		pos[c] = i
	}
	all := conjuncts(s.filter)
	var head []plan.Expr
	for _, c := range all[:lead] {
		head = append(head, plan.RewriteColumns(c, func(r *plan.ColumnRef) plan.Expr {
			out := *r
			out.Index = pos[r.Index]
			return &out
		}))
	}
	lf := &lateFilter{}
	var pred *predicate
	var err error
	if len(head) > 0 {
		if pred, err = newPredicate(plan.Conjoin(head), s.env.Mem); err != nil {
			return nil, err
		}
	}
	if lead < len(all) {
		if lf.rest, err = newPredicate(plan.Conjoin(all[lead:]), s.env.Mem); err != nil {
			return nil, err
		}
	}
	rfs := make([]*rfTarget, len(s.rfs))
	rfCols := make([]int, len(s.rfs))
	for i, t := range s.rfs {
		rfs[i], rfCols[i] = t, pos[t.col]
	}
	mem := s.env.Mem
	lf.pre = &catalog.Prefilter{
		Columns: cols,
		MaxKept: lateMaxKept,
		Select: func(ctx context.Context, b arrow.RecordBatch) ([]int32, error) {
			sel, err := lateSelect(ctx, s, rfs, rfCols, pred, b)
			if err != nil {
				return nil, filterError{err}
			}
			return sel, nil
		},
		Take: func(ctx context.Context, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
			return takeSel(ctx, mem, b, sel)
		},
	}
	return lf, nil
}

// lateSelect returns the positions of b's rows that pass the run-time filters (at columns
// rfCols of b) and then pred, as applyRuntimeFilters and predicate.applyPooled would keep
// them: each filter and each step of pred sees only the rows the earlier ones kept.
func lateSelect(ctx context.Context, s *Scan, rfs []*rfTarget, rfCols []int, pred *predicate,
	b arrow.RecordBatch) ([]int32, error) {
	n := int(b.NumRows())
	b.Retain()
	defer func() { b.Release() }()
	var idx []int32 // positions in the input of b's rows, once narrowed
	narrowed := false
	narrow := func(sel []int32, last bool) error {
		if !last {
			next, err := takeSel(ctx, s.env.Mem, b, sel)
			if err != nil {
				return err
			}
			b.Release()
			b = next
		}
		if narrowed {
			for i, x := range sel {
				sel[i] = idx[x]
			}
		}
		idx, narrowed = sel, true
		return nil
	}
	for i, t := range rfs {
		set := t.f.active()
		if set == nil || t.off.Load() || b.NumRows() == 0 {
			continue
		}
		sel, ok := set.selectRows(b.Column(rfCols[i]), nil)
		if !ok {
			continue
		}
		t.count(b.NumRows(), len(sel))
		if len(sel) == int(b.NumRows()) {
			continue
		}
		if err := narrow(sel, pred == nil && i == len(rfs)-1); err != nil {
			return nil, err
		}
	}
	if pred != nil {
		for i, step := range pred.steps {
			if b.NumRows() == 0 {
				break
			}
			sel, err := selectConjuncts(ctx, step, b, nil)
			if err != nil {
				return nil, err
			}
			if len(sel) == int(b.NumRows()) {
				continue
			}
			if err := narrow(sel, i == len(pred.steps)-1); err != nil {
				return nil, err
			}
		}
	}
	if !narrowed {
		return kernel.Iota32(nil, n), nil
	}
	return idx, nil
}

// filterFor returns what the scan still applies to rd's batches: the run-time filters
// (false when rd applied them) and the predicate.
func (s *Scan) filterFor(rd catalog.RecordReader) (bool, *predicate) {
	if s.late != nil {
		if p, ok := rd.(catalog.Prefiltered); ok && p.Prefiltered() {
			return false, s.late.rest
		}
	}
	return len(s.rfs) > 0, s.pred
}

// filterError marks an error of the query's own filter evaluated by a reader's prefilter:
// the scan returns it as the filter would have (filterOwnError), not as a read error the
// catalog wrapped and classified.
type filterError struct{ err error }

func (e filterError) Error() string { return e.err.Error() }

func (e filterError) Unwrap() error { return e.err }

// filterOwnError returns err's filter error when it carries one, else err wrapped as a read
// error of the scan (format, with args, precedes it).
func filterOwnError(err error, format string, args ...any) error {
	var fe filterError
	if errors.As(err, &fe) {
		return fe.err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
