package ops

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// HashBuild is the build side of a hash join shared by several HashJoins, one per worker
// of a parallel pipeline (DuckDB's shared join hash table): the first join that needs it
// opens and drains the right input and builds the hash table (in parallel, see flatIndex);
// the others wait for it and then probe it concurrently. It is read-only once built, so
// only join types that never mark build rows may share it (SharedJoinType), except a
// flipped build (NewFlippedHashBuild), whose workers mark rows in flags of their own. The
// last join to close releases it.
type HashBuild struct {
	right exec.Operator
	spec  JoinSpec
	env   exec.Env
	res   *exec.Reservation

	mu    sync.Mutex
	state int           // 0: not started, 1: building, 2: done
	done  chan struct{} // closed when the build ends
	err   error
	batch arrow.RecordBatch // owned; each join retains it
	ht    *hashTable
	refs  int
	// flipped: the build input is the join's left input (hash_join_shared_flip.go);
	// probing counts the workers still probing and matched holds the merged flags.
	flipped bool
	probing int
	matched []bool
	// rfLeft and rfRight, when set, are published once the hash table is built on the
	// right input (rfLeft, for the left input's scan) or on the left one (rfRight).
	rfLeft, rfRight *RuntimeFilter
}

// SharedJoinType reports whether joins of type t can share a HashBuild: inner, left, semi,
// anti and mark joins (right and full joins mark build rows).
func SharedJoinType(t plan.JoinType) bool {
	switch t {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin, plan.MarkJoin:
		return true
	}
	return false
}

// NewHashBuild returns the build side over right (owned) for users joins made with
// NewSharedHashJoin.
func NewHashBuild(right exec.Operator, spec JoinSpec, env exec.Env, users int) *HashBuild {
	env = env.WithDefaults()
	return &HashBuild{right: right, spec: spec, env: env, res: newReservation(env, "hash join build"),
		done: make(chan struct{}), refs: users}
}

// NewSharedHashJoin returns a hash join of left with the shared build side b; spec must
// be b's and its type must satisfy SharedJoinType. When b is flipped (NewFlippedHashBuild)
// the probe input left is the join's right input and the type must satisfy
// FlippedJoinType.
func NewSharedHashJoin(left exec.Operator, b *HashBuild, spec JoinSpec, env exec.Env) *HashJoin {
	h := NewHashJoin(left, nil, spec, env)
	h.shared = b
	h.flipLimit = -1
	return h
}

// get returns the build batch (retained for the caller) and the hash table, building them
// on the first call.
func (b *HashBuild) get(ctx context.Context) (arrow.RecordBatch, *hashTable, error) {
	b.mu.Lock()
	first := b.state == 0
	if first {
		b.state = 1
	}
	b.mu.Unlock()
	if first {
		b.err = b.run(ctx)
		close(b.done)
	} else {
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if b.err != nil {
		return nil, nil, b.err
	}
	b.batch.Retain()
	return b.batch, b.ht, nil
}

// run opens and drains the right input and indexes it.
func (b *HashBuild) run(ctx context.Context) error {
	if !b.flipped && !SharedJoinType(b.spec.Type) || b.flipped && !FlippedJoinType(b.spec.Type) {
		return dberr.New(dberr.Internal, "shared hash build (flipped %v) for a %s join", b.flipped, b.spec.Type)
	}
	if err := b.right.Open(ctx); err != nil {
		return err
	}
	batch, err := drainConcat(ctx, b.right, b.env, b.res)
	if err != nil {
		return err
	}
	if batch == nil {
		batch = emptyBatch(b.right.Schema(), b.env)
	}
	settleNullCounts(batch)
	b.batch = batch
	ht, err := newHashTable(ctx, batch, b.buildKeys(), b.env)
	if err != nil {
		return err
	}
	b.ht = ht
	if err := b.res.TryGrow(ht.bytes()); err != nil {
		return err
	}
	if b.flipped { // runtime_filter.go: after the table, best effort
		b.rfRight.publish(ht.keyCols, b.res)
	} else {
		b.rfLeft.publish(ht.keyCols, b.res)
	}
	return nil
}

// release drops one user; the last one frees everything and closes the right input.
func (b *HashBuild) release() error {
	b.mu.Lock()
	b.refs--
	last := b.refs == 0
	b.mu.Unlock()
	if !last {
		return nil
	}
	if b.ht != nil {
		releaseArrays(b.ht.keyCols)
		b.ht = nil
	}
	if b.batch != nil {
		b.batch.Release()
		b.batch = nil
	}
	b.res.Free()
	return b.right.Close()
}

// Abandon releases a build no join was made for (its input is closed unopened).
func (b *HashBuild) Abandon() error {
	b.mu.Lock()
	b.refs = 1
	b.mu.Unlock()
	return b.release()
}

// settleNullCounts computes every lazily counted null count of batch now, while one
// goroutine owns it: workers probing the shared build read NullN concurrently, and the
// first read of an unknown count writes it. ArrayData.NullN only reports the stored count
// (negative when unknown); an Array over the data counts and stores it.
func settleNullCounts(batch arrow.RecordBatch) {
	var settle func(d arrow.ArrayData)
	settle = func(d arrow.ArrayData) {
		if d.NullN() < 0 {
			a := array.MakeFromData(d)
			a.NullN()
			a.Release()
		}
		for _, c := range d.Children() {
			settle(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			settle(d.Dictionary())
		}
	}
	for _, col := range batch.Columns() {
		settle(col.Data())
	}
}
