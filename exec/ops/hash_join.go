package ops

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// HashJoin is an equi-join: it reads its whole right input into a hash table on the right
// keys (the build side; the planner puts the smaller input right), then streams the left
// input through it (the probe side). It supports every plan.JoinType. NULL keys never match;
// NaN matches NaN and -0.0 matches 0.0, as in DuckDB. The residual condition is evaluated
// on the key-matching pairs. Left-side key types must equal the right-side ones (the
// binder casts them). The build side is held in memory, reserved (its batches and its hash
// table) against the query's memory pool; it does not spill. Integer-like keys go into a
// flat open-addressing index built on several goroutines (hash_join_table.go); semi and
// anti joins over a small left input build on it instead (hash_join_flip.go); joins of a
// parallel pipeline share one build side (NewSharedHashJoin, hash_join_shared.go), built
// on the left input for semi, anti and left joins with a small left input
// (NewFlippedHashBuild, hash_join_shared_flip.go).
type HashJoin struct {
	left, right exec.Operator
	spec        JoinSpec
	env         exec.Env
	core        *joinCore
	built       bool
	res         *exec.Reservation
	// probe is the input streamed through the hash table: left, or right once the join
	// has flipped (hash_join_flip.go); a replay of left when the flip was tried and
	// abandoned.
	probe exec.Operator
	// flipLimit is the largest left input that is built on (-1: never).
	flipLimit int64
	// shared is the build side when it is shared with other joins (right is then nil).
	shared *HashBuild
	closed bool
	// rfLeft and rfRight, when set, are published once the hash table is built on the
	// right input (rfLeft, for the left input's scan) or on the left one (rfRight).
	rfLeft, rfRight *RuntimeFilter
	// probeFirst makes the join read its first probe batch before building (SetProbeFirst);
	// first replays it.
	probeFirst bool
	first      *replay
}

// NewHashJoin builds a hash join of left and right; spec must have at least one key pair.
func NewHashJoin(left, right exec.Operator, spec JoinSpec, env exec.Env) *HashJoin {
	env = env.WithDefaults()
	return &HashJoin{left: left, right: right, spec: spec, env: env, res: newReservation(env, "hash join build"),
		flipLimit: defaultFlipLimit}
}

// Schema implements exec.Operator.
func (h *HashJoin) Schema() *arrow.Schema { return h.spec.Schema }

// Open implements exec.Operator.
func (h *HashJoin) Open(ctx context.Context) error {
	if len(h.spec.LeftKeys) == 0 || len(h.spec.LeftKeys) != len(h.spec.RightKeys) {
		return dberr.New(dberr.Internal, "hash join: %d left keys, %d right keys", len(h.spec.LeftKeys), len(h.spec.RightKeys))
	}
	for i, lk := range h.spec.LeftKeys {
		if rt := h.spec.RightKeys[i].Type(); !sameKeyType(lk.Type(), rt) {
			return dberr.New(dberr.Internal, "hash join key %d: left type %s, right type %s", i, lk.Type(), rt)
		}
	}
	if h.shared != nil && h.shared.flipped {
		return h.openFlipped(ctx) // hash_join_shared_flip.go
	}
	core, err := newJoinCore(h.spec, h.left.Schema(), h.rightSchema(), h.env)
	if err != nil {
		return err
	}
	h.core = core
	leftEvals, err := expr.CompileAll(h.spec.LeftKeys, h.env.Mem)
	if err != nil {
		return err
	}
	// Semi, anti and mark joins without a condition only need to know that a match exists.
	existence := h.spec.Cond == nil && (h.core.typ == plan.SemiJoin || h.core.typ == plan.AntiJoin || h.core.typ == plan.MarkJoin)
	h.core.src = &hashSource{evals: leftEvals, firstOnly: existence}
	if err := h.left.Open(ctx); err != nil {
		return err
	}
	if h.shared != nil {
		return nil // the first user of the build opens its input
	}
	return h.right.Open(ctx)
}

// rightSchema is the schema of the right input (shared or not).
func (h *HashJoin) rightSchema() *arrow.Schema {
	if h.shared != nil {
		return h.shared.right.Schema()
	}
	return h.right.Schema()
}

// sameKeyType reports whether keys of types a and b encode alike.
func sameKeyType(a, b arrow.DataType) bool {
	str := func(id arrow.Type) bool { return id == arrow.STRING || id == arrow.LARGE_STRING }
	return arrow.TypeEqual(a, b) || str(a.ID()) && str(b.ID()) || a.ID() == arrow.NULL || b.ID() == arrow.NULL
}

// Next implements exec.Operator. The first call builds the hash table.
func (h *HashJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !h.built {
		h.built = true
		if h.probeFirst && !h.canFlip() && (h.shared == nil || !h.shared.flipped) {
			if err := h.readProbeFirst(ctx); err != nil {
				return nil, err
			}
		}
		if err := h.build(ctx); err != nil {
			return nil, err
		}
	}
	return h.core.next(ctx, h.probe)
}

// SetProbeFirst makes the join read its first probe batch before it builds: the joins
// below it on the probe side then build first, and a run-time filter they publish that
// is carried to this join's build side (exec/build/runtime_filter.go) narrows the build.
// Joins that may build on their left input ignore it.
func (h *HashJoin) SetProbeFirst(on bool) { h.probeFirst = on }

// readProbeFirst reads the first probe batch and keeps it for the probe to replay.
func (h *HashJoin) readProbeFirst(ctx context.Context) error {
	b, err := h.left.Next(ctx)
	if err != nil {
		return err
	}
	h.first = &replay{rest: h.left, ended: b == nil}
	if b != nil {
		h.first.batches = []arrow.RecordBatch{b}
	}
	return nil
}

func (h *HashJoin) build(ctx context.Context) error {
	h.probe = h.left
	if h.first != nil {
		h.probe = h.first
	}
	if h.shared != nil {
		b, ht, err := h.shared.get(ctx)
		if err != nil {
			return err
		}
		if h.shared.flipped {
			h.setFlippedBuild(b)
		} else {
			h.core.setBuild(b, h.rightSchema())
		}
		h.core.src.(*hashSource).ht = ht
		return nil
	}
	if h.canFlip() {
		if flipped, err := h.tryFlip(ctx); flipped || err != nil {
			return err
		}
	}
	b, err := drainConcat(ctx, h.right, h.env, h.res)
	if err != nil {
		return err
	}
	h.core.setBuild(b, h.right.Schema())
	ht, err := newHashTable(ctx, h.core.build, h.spec.RightKeys, h.env)
	if err != nil {
		return err
	}
	src := h.core.src.(*hashSource)
	src.ht = ht
	if err := h.res.TryGrow(ht.bytes()); err != nil {
		return err
	}
	h.rfLeft.publish(ht.keyCols, h.res) // runtime_filter.go: after the table, best effort
	return nil
}

// Close implements exec.Operator.
func (h *HashJoin) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	h.res.Free()
	if r, ok := h.probe.(*replay); ok {
		_ = r.Close() // releases batches only
	}
	if h.core != nil {
		h.core.close()
		if src, ok := h.core.src.(*hashSource); ok && src.ht != nil {
			if h.shared == nil {
				releaseArrays(src.ht.keyCols)
			}
			src.ht = nil
		}
	}
	errL := h.left.Close()
	var errR error
	if h.shared != nil {
		errR = h.shared.release()
	} else {
		errR = h.right.Close()
	}
	if errL != nil {
		return errL
	}
	return errR
}

// hashTable maps the keys of the build rows to chains of build rows: through a flatIndex
// when every key is integer-like, else through a map of encoded keys.
type hashTable struct {
	flat     *flatIndex       // integer-like keys
	heads    map[string]int32 // other keys: encoded key → last build row with it
	next     []int32          // build row → next build row in its chain, or -1
	nullRows []int32          // build rows with a NULL key
	keyCols  []arrow.Array    // build key columns (owned)
	keyEnc   []kernel.KeyEncoder
	rows     int
}

// newHashTable indexes the rows of build on keys (expressions over build).
func newHashTable(ctx context.Context, build arrow.RecordBatch, keys []plan.Expr, env exec.Env) (*hashTable, error) {
	evals, err := expr.CompileAll(keys, env.Mem)
	if err != nil {
		return nil, err
	}
	n := int(build.NumRows())
	ht := &hashTable{next: make([]int32, n), rows: n}
	flat := true
	for _, ev := range evals {
		col, err := ev.Eval(ctx, build)
		if err != nil {
			releaseArrays(ht.keyCols)
			return nil, err
		}
		ht.keyCols = append(ht.keyCols, col)
		enc, err := kernel.NewKeyEncoder(col)
		if err != nil {
			releaseArrays(ht.keyCols)
			return nil, fmt.Errorf("hash join build key: %w", err)
		}
		ht.keyEnc = append(ht.keyEnc, enc)
		flat = flat && flatKeyType(col.DataType())
	}
	if flat {
		if err := ht.indexFlat(ctx, env.Parallelism); err != nil {
			releaseArrays(ht.keyCols)
			return nil, err
		}
		return ht, nil
	}
	ht.indexMap()
	return ht, nil
}

// indexFlat builds the flat index (integer-like keys) with up to workers goroutines.
func (ht *hashTable) indexFlat(ctx context.Context, workers int) error {
	var isNull []bool
	for _, c := range ht.keyCols {
		if c.NullN() == 0 {
			continue
		}
		if isNull == nil {
			isNull = make([]bool, ht.rows)
		}
		for i := range ht.rows {
			isNull[i] = isNull[i] || c.IsNull(i)
		}
	}
	for i, null := range isNull {
		if null {
			ht.nullRows = append(ht.nullRows, int32(i))
			ht.next[i] = -1
		}
	}
	ix, err := newFlatIndex(ctx, ht.keyCols, ht.next, isNull, workers)
	if err != nil {
		return err
	}
	ht.flat = ix
	return nil
}

// indexMap builds the map of encoded keys (any key type).
func (ht *hashTable) indexMap() {
	ht.heads = make(map[string]int32, ht.rows)
	var buf []byte
	for i := range ht.rows {
		var ok bool
		buf, ok = encodeRow(buf[:0], ht.keyCols, ht.keyEnc, i)
		if !ok {
			ht.nullRows = append(ht.nullRows, int32(i))
			ht.next[i] = -1
			continue
		}
		prev, found := ht.heads[string(buf)]
		if !found {
			prev = -1
		}
		ht.next[i] = prev
		ht.heads[string(buf)] = int32(i)
	}
}

// bytes is the memory the table holds besides the build batch.
func (ht *hashTable) bytes() int64 {
	n := int64(ht.rows) * 4
	if ht.flat != nil {
		return n + ht.flat.bytes()
	}
	return n + int64(len(ht.heads))*mapEntryBytes
}

// encodeRow appends the encoding of row i's keys; ok is false when a key is NULL.
func encodeRow(dst []byte, cols []arrow.Array, encs []kernel.KeyEncoder, i int) ([]byte, bool) {
	for k, c := range cols {
		if !kernel.IsValid(c, i) {
			return dst, false
		}
		dst = encs[k](dst, i)
	}
	return dst, true
}

// hashSource yields, for each left row, the build rows with equal keys.
type hashSource struct {
	ht    *hashTable
	evals []expr.Evaluator
	keys  []arrow.Array // the current batch's left key columns
	enc   []kernel.KeyEncoder
	heads []int32 // per left row: first candidate build row, or -1 (a start in a dense perm)
	ends  []int32 // with a dense index's perm: per left row, the end of its run
	null  []bool  // per left row: some key is NULL
	row   int
	pos   int32
	buf   []byte
	// flat index probes: the key values widened to int64 and their hashes
	ikeys  [][]int64
	hashes []uint64
	// firstOnly yields at most one pair per left row.
	firstOnly bool
}

func (s *hashSource) probe(ctx context.Context, b arrow.RecordBatch) error {
	s.release()
	for _, ev := range s.evals {
		col, err := ev.Eval(ctx, b)
		if err != nil {
			return err
		}
		s.keys = append(s.keys, col)
		enc, err := kernel.NewKeyEncoder(col)
		if err != nil {
			return fmt.Errorf("hash join probe key: %w", err)
		}
		s.enc = append(s.enc, enc)
	}
	n := int(b.NumRows())
	s.heads, s.null = resetInt32s(s.heads, n), resetBools(s.null, n)
	if s.ht.flat != nil {
		s.probeFlat(n)
	} else {
		s.probeMap(n)
	}
	s.row, s.pos = 0, s.heads[0]
	s.skipOther()
	return nil
}

// probeFlat looks the batch's n rows up in the flat index.
func (s *hashSource) probeFlat(n int) {
	if cap(s.ikeys) < len(s.keys) {
		s.ikeys = make([][]int64, len(s.keys))
	}
	s.ikeys = s.ikeys[:len(s.keys)]
	for k, c := range s.keys {
		s.ikeys[k] = int64Values(c, s.ikeys[k])
		if c.NullN() > 0 {
			for i := range n {
				s.null[i] = s.null[i] || c.IsNull(i)
			}
		}
	}
	if d := s.ht.flat.dense; d != nil {
		s.probeDense(d, n) // hash_join_dense.go
		return
	}
	if cap(s.hashes) < n {
		s.hashes = make([]uint64, n)
	}
	s.hashes = s.hashes[:n]
	hashKeys(s.ikeys, s.hashes)
	for i, h := range s.hashes {
		if s.null[i] {
			s.heads[i] = -1
			continue
		}
		s.heads[i] = s.ht.flat.lookup(h)
	}
}

// probeMap looks the batch's n rows up in the map of encoded keys.
func (s *hashSource) probeMap(n int) {
	for i := range n {
		var ok bool
		s.buf, ok = encodeRow(s.buf[:0], s.keys, s.enc, i)
		head, found := int32(-1), false
		if ok {
			head, found = s.ht.heads[string(s.buf)]
		}
		if !found {
			head = -1
		}
		s.heads[i] = head
		s.null[i] = !ok
	}
}

func resetInt32s(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// skipOther advances s.pos past build rows whose keys differ from the current row's (only
// with a flat index over several keys, whose chains hold every row of one hash).
func (s *hashSource) skipOther() {
	if s.ht.flat == nil || len(s.ikeys) < 2 {
		return
	}
	for s.pos >= 0 && !s.ht.flat.sameKeys(s.ikeys, s.row, s.pos) {
		s.pos = s.ht.next[s.pos]
	}
}

func (s *hashSource) pairs(l, r []int32, limit int) ([]int32, []int32, bool) {
	if s.ht.flat != nil && s.ht.flat.dense != nil && s.ht.flat.dense.perm != nil {
		return s.runPairs(s.ht.flat.dense.perm, l, r, limit)
	}
	n := len(s.heads)
	// Chains of one row (a flat index over unique hashes) end at their head: reading
	// next would only cost a cache miss per match.
	single := s.firstOnly || s.ht.flat != nil && s.ht.flat.unique
	for s.row < n {
		for s.pos >= 0 {
			if len(l) >= limit {
				return l, r, false
			}
			l, r = append(l, int32(s.row)), append(r, s.pos)
			if single {
				s.pos = -1
			} else {
				s.pos = s.ht.next[s.pos]
			}
			s.skipOther()
		}
		s.row++
		if s.row < n {
			s.pos = s.heads[s.row]
			s.skipOther()
		}
	}
	return l, r, true
}

func (s *hashSource) nullPairs(row int, l, r []int32, limit int) ([]int32, []int32) {
	if !s.null[row] {
		for _, b := range s.ht.nullRows {
			if len(l) >= limit {
				break
			}
			if s.keysCompatible(row, int(b)) {
				l, r = append(l, int32(row)), append(r, b)
			}
		}
		return l, r
	}
	for b := 0; b < s.ht.rows && len(l) < limit; b++ {
		if s.keysCompatible(row, b) {
			l, r = append(l, int32(row)), append(r, int32(b))
		}
	}
	return l, r
}

// keysCompatible reports whether every key of left row i equals build row b's where both
// are non-NULL.
func (s *hashSource) keysCompatible(i, b int) bool {
	var lb, rb [64]byte
	for k, lc := range s.keys {
		rc := s.ht.keyCols[k]
		if !kernel.IsValid(lc, i) || !kernel.IsValid(rc, b) {
			continue
		}
		if !bytes.Equal(s.enc[k](lb[:0], i), s.ht.keyEnc[k](rb[:0], b)) {
			return false
		}
	}
	return true
}

func (s *hashSource) release() {
	releaseArrays(s.keys)
	s.keys, s.enc = s.keys[:0], s.enc[:0]
}
