package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// SetOp is UNION, INTERSECT or EXCEPT, with or without ALL, with SQL multiset semantics;
// rows compare as in DISTINCT (NULLs equal, NaN equals NaN, -0.0 equals 0.0).
//
//   - UNION ALL streams the left input, then the right one.
//   - UNION streams both, keeping the first occurrence of each row.
//   - INTERSECT / EXCEPT read the right input into a table of row counts first, then stream
//     the left one: INTERSECT keeps the first occurrence of left rows present on the right,
//     INTERSECT ALL keeps min(m, n) copies, EXCEPT keeps the first occurrence of left rows
//     absent on the right, EXCEPT ALL keeps max(m-n, 0) copies.
//
// Output rows keep the order of the left input (then the right one for UNION). The row
// table is held in memory: it is not reserved against a memory pool yet.
type SetOp struct {
	left, right exec.Operator
	kind        plan.SetOpKind
	all         bool
	schema      *arrow.Schema
	env         exec.Env

	counts    map[string]int // INTERSECT/EXCEPT: right rows; UNION: rows seen (value unused)
	built     bool
	leftDone  bool
	rightDone bool
	out       splitter
	buf       []byte
	res       *exec.Reservation
	newBytes  int64 // bytes of keys added to counts since the last reservation
}

// NewSetOp builds a set operation over left and right (whose column types are equal) with
// the given output schema.
func NewSetOp(left, right exec.Operator, kind plan.SetOpKind, all bool, schema *arrow.Schema, env exec.Env) *SetOp {
	env = env.WithDefaults()
	return &SetOp{left: left, right: right, kind: kind, all: all, schema: schema, env: env,
		out: splitter{size: int64(env.BatchSize)}, counts: map[string]int{}, res: newReservation(env, "set operation")}
}

// Schema implements exec.Operator.
func (s *SetOp) Schema() *arrow.Schema { return s.schema }

// Open implements exec.Operator.
func (s *SetOp) Open(ctx context.Context) error {
	if s.kind != plan.Union && s.kind != plan.Intersect && s.kind != plan.Except {
		return dberr.NotSupported("set operation " + s.kind.String())
	}
	if s.left.Schema().NumFields() != s.right.Schema().NumFields() {
		return dberr.New(dberr.Internal, "set operation inputs have %d and %d columns",
			s.left.Schema().NumFields(), s.right.Schema().NumFields())
	}
	if err := s.left.Open(ctx); err != nil {
		return err
	}
	return s.right.Open(ctx)
}

// Next implements exec.Operator.
func (s *SetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b := s.out.next(); b != nil {
			return withSchema(b, s.schema), nil
		}
		if s.kind != plan.Union && !s.built {
			s.built = true
			if err := s.buildCounts(ctx); err != nil {
				return nil, err
			}
		}
		in, fromRight := s.left, false
		if s.leftDone {
			if s.kind != plan.Union || s.rightDone {
				return nil, nil
			}
			in, fromRight = s.right, true
		}
		b, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.leftDone = true
			s.rightDone = s.rightDone || fromRight
			continue
		}
		if err := s.consume(ctx, b); err != nil {
			return nil, err
		}
	}
}

// buildCounts reads the right input into a table of row multiplicities.
func (s *SetOp) buildCounts(ctx context.Context) error {
	for {
		b, err := s.right.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		err = s.eachRow(b, func(key []byte, _ int) {
			n, found := s.counts[string(key)]
			if !found {
				s.newBytes += int64(len(key)) + mapEntryBytes
			}
			s.counts[string(key)] = n + 1
		})
		b.Release()
		if err != nil {
			return err
		}
		if err := s.reserveNew(); err != nil {
			return err
		}
	}
}

// consume selects the output rows of an input batch (owned) and queues them.
func (s *SetOp) consume(ctx context.Context, b arrow.RecordBatch) error {
	defer b.Release()
	if s.kind == plan.Union && s.all {
		b.Retain()
		s.out.push(b)
		return nil
	}
	var keep []int32
	err := s.eachRow(b, func(key []byte, i int) {
		if s.keepRow(key) {
			keep = append(keep, int32(i))
		}
	})
	if err == nil {
		err = s.reserveNew()
	}
	if err != nil || len(keep) == 0 {
		return err
	}
	if len(keep) == int(b.NumRows()) {
		b.Retain()
		s.out.push(b)
		return nil
	}
	sel, err := takeRows(ctx, s.env, b, keep)
	if err != nil {
		return err
	}
	s.out.push(sel)
	return nil
}

// keepRow decides whether a row with this key is output, updating the counts. Distinct
// variants mark an output key with -1 so that it is never output again.
func (s *SetOp) keepRow(key []byte) bool {
	n, found := s.counts[string(key)]
	switch {
	case s.kind == plan.Union:
		if !found {
			s.counts[string(key)] = -1
			s.newBytes += int64(len(key)) + mapEntryBytes
		}
		return !found
	case s.kind == plan.Intersect && s.all:
		if n > 0 {
			s.counts[string(key)] = n - 1
			return true
		}
		return false
	case s.kind == plan.Intersect:
		if n > 0 {
			s.counts[string(key)] = -1
			return true
		}
		return false
	case s.all: // EXCEPT ALL
		if n > 0 {
			s.counts[string(key)] = n - 1
			return false
		}
		return true
	}
	// EXCEPT: a found key is on the right (n > 0) or was output already (-1).
	if found {
		return false
	}
	s.counts[string(key)] = -1
	s.newBytes += int64(len(key)) + mapEntryBytes
	return true
}

// reserveNew reserves the keys added to the counts since the last call.
func (s *SetOp) reserveNew() error {
	n := s.newBytes
	s.newBytes = 0
	return s.res.TryGrow(n)
}

// eachRow calls f with the encoded key of every row of b (valid only during the call).
func (s *SetOp) eachRow(b arrow.RecordBatch, f func(key []byte, i int)) error {
	encs := make([]kernel.KeyEncoder, b.NumCols())
	for c, col := range b.Columns() {
		enc, err := kernel.NewKeyEncoder(col)
		if err != nil {
			return err
		}
		encs[c] = enc
	}
	for i := range int(b.NumRows()) {
		s.buf = s.buf[:0]
		for _, enc := range encs {
			s.buf = enc(s.buf, i)
		}
		f(s.buf, i)
	}
	return nil
}

// Close implements exec.Operator.
func (s *SetOp) Close() error {
	s.out.release()
	s.res.Free()
	errL := s.left.Close()
	errR := s.right.Close()
	if errL != nil {
		return errL
	}
	return errR
}
