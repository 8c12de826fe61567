package ops

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Aggregate is a hash aggregate: it groups its whole input by the group-by expressions and
// computes the aggregates per group. Output columns are the group keys, then the
// aggregates; groups come out in order of first appearance. NULL keys form one group.
// Without GROUP BY it yields exactly one row, even on empty input (count 0, others NULL).
//
// Supported: count(*), count(x), sum, avg, min, max, stddev_samp/stddev, stddev_pop,
// var_samp/variance, var_pop, bool_and, bool_or, string_agg (constant separator), list/
// array_agg, first, last, any_value and approx_count_distinct (exact up to 1024 distinct
// values per group, HyperLogLog beyond), each with DISTINCT and FILTER. Keys may
// be of any type kernel.NewKeyEncoder supports. The state (groups, keys, DISTINCT sets) is
// reserved against the query's memory pool batch by batch; it is not spilled. This operator
// consumes its input on one goroutine; see ParallelAggregate for the morsel-parallel form.
// (Order-sensitive aggregates — first, last, list, string_agg — follow input order.)
//
// Per batch it may apply its input's WHERE condition itself (SetInputFilter,
// aggregate_filter.go), match narrow keys as packed integers (aggregate_small.go) and
// one-byte string keys through a direct table (aggregate_chars.go), keep
// the groups of up to four integer keys in a typed hash table (aggregate_ints.go), compute
// arithmetic its arguments share once (aggregate_cse.go), compute and sum decimal sum/avg
// arguments as int64s when their bounds allow (agg_lanes.go) and allocate its per-batch
// arrays from a recycling pool (aggregate_pool.go).
type Aggregate struct {
	input   exec.Operator
	groupBy []plan.Expr
	aggs    []plan.AggCall
	schema  *arrow.Schema
	env     exec.Env

	keyEvals []expr.Evaluator
	args     []expr.Evaluator // per aggregate; nil for count(*)
	filters  []expr.Evaluator // per aggregate; nil when no FILTER
	accs     []accumulator
	seen     []map[string]struct{} // per DISTINCT aggregate: (group, value) pairs seen
	seenInts []*pairSet            // per DISTINCT aggregate over integers: used instead of seen

	groups    map[string]int32
	nGroups   int
	keyChunks [][]arrow.Array // per key column: the key values of new groups, batch by batch
	keyBuf    []byte
	rowKeys   kernel.RowKeys // the current batch's encoded group keys
	out       splitter
	done      bool
	res       *exec.Reservation
	newBytes  int64   // state added since the last reservation
	accBytes  []int64 // per aggregate: the sizedAcc state already accounted

	// partial is set on the workers of a ParallelAggregate: DISTINCT aggregates then keep
	// their (worker-locally) new values in distinct instead of updating the accumulator, and
	// the merge replays them through the final operator's DISTINCT sets.
	partial  bool
	distinct [][]distinctChunk // per aggregate

	// the fused input filter (aggregate_filter.go): its condition, compiled conjuncts, and
	// the selection and include mask buffers reused between batches
	preCond plan.Expr
	pre     []preConjunct
	sel     []int32
	incl    []bool
	// groupBuf holds the current batch's row groups; small caches packed keys
	// (aggregate_small.go)
	groupBuf []int32
	small    smallKeys
	// ints holds the groups of up to four integer keys (aggregate_ints.go); nil: the
	// general map. noInts (tests) keeps the general map.
	ints   *intGroups
	noInts bool
	// noDistinctInts (tests) keeps DISTINCT sets over integers in the general seen map
	noDistinctInts bool
	// evalMem allocates the per-batch arrays of the keys, arguments and fused filter
	// (aggregate_pool.go); nil until init
	evalMem *Recycler
	// cse computes the aggregates' common subexpressions (aggregate_cse.go); nil: none
	cse *commonExprs
	// inputMem is the allocator of the input pipeline, closed after it (OwnRecycler)
	inputMem *Recycler
	// lanes computes decimal sum and avg arguments on int64 lanes (agg_lanes.go); nil:
	// none qualifies. lanePartial and laneCounts are its per-batch per-group buffers.
	lanes                   *laneProgram
	lanePartial, laneCounts []int64
	// fusedNodes, leftOut and laneZeros (all zero) are fuseSums' per-batch buffers
	// (agg_lanes_fused.go); fusedBatches counts the batches it summed
	fusedNodes   []int
	leftOut      []int32
	laneZeros    []int64
	fusedBatches int
	noLanes      bool // tests: always take the general path
}

// NewAggregate builds an aggregate over input with the given output schema.
func NewAggregate(input exec.Operator, groupBy []plan.Expr, aggs []plan.AggCall, schema *arrow.Schema, env exec.Env) *Aggregate {
	env = env.WithDefaults()
	return &Aggregate{input: input, groupBy: groupBy, aggs: aggs, schema: schema, env: env,
		out: splitter{size: int64(env.BatchSize)}, res: newReservation(env, "hash aggregate")}
}

// Schema implements exec.Operator.
func (a *Aggregate) Schema() *arrow.Schema { return a.schema }

// Open implements exec.Operator: it compiles the expressions and creates the states.
func (a *Aggregate) Open(ctx context.Context) error {
	if err := a.init(); err != nil {
		return err
	}
	return a.input.Open(ctx)
}

// init compiles the expressions and creates the states.
func (a *Aggregate) init() error {
	var err error
	a.evalMem = NewRecycler(a.env.Mem)
	if a.keyEvals, err = expr.CompileAll(a.groupBy, a.evalMem); err != nil {
		return err
	}
	if err := a.compilePre(); err != nil {
		return err
	}
	if !a.noLanes {
		a.lanes = compileLanes(a.aggs) // before shareCommon rewrites the arguments
	}
	if err := a.shareCommon(); err != nil {
		return err
	}
	n := len(a.aggs)
	a.args, a.filters = make([]expr.Evaluator, n), make([]expr.Evaluator, n)
	a.accs, a.seen = make([]accumulator, n), make([]map[string]struct{}, n)
	a.seenInts = make([]*pairSet, n)
	for i, call := range a.aggs {
		if err := a.compileAgg(i, call); err != nil {
			return err
		}
	}
	a.groups = map[string]int32{}
	if !a.noInts {
		types := make([]arrow.DataType, len(a.keyEvals))
		for i, ev := range a.keyEvals {
			types[i] = ev.Type()
		}
		a.ints = newIntGroups(types, a.res) // aggregate_ints.go
	}
	a.keyChunks = make([][]arrow.Array, len(a.groupBy))
	a.distinct = make([][]distinctChunk, n)
	if len(a.groupBy) == 0 {
		a.addGroups(1)
	}
	return nil
}

func (a *Aggregate) compileAgg(i int, call plan.AggCall) error {
	var argType arrow.DataType
	switch len(call.Args) {
	case 0:
	case 1:
		ev, err := expr.Compile(call.Args[0], a.evalMem)
		if err != nil {
			return err
		}
		a.args[i], argType = ev, call.Args[0].Type()
	case 2:
		if call.Func == "arg_max" || call.Func == "arg_min" {
			ev, err := packArgs(call.Args, a.evalMem) // agg_quantile.go
			if err != nil {
				return err
			}
			a.args[i], argType = ev, ev.Type()
			break
		}
		if call.Func != "string_agg" && call.Func != "quantile_cont" && call.Func != "quantile_disc" {
			return dberr.NotSupported("aggregate " + call.Func + " with several arguments")
		}
		ev, err := expr.Compile(call.Args[0], a.evalMem)
		if err != nil {
			return err
		}
		a.args[i], argType = ev, call.Args[0].Type()
	default:
		return dberr.NotSupported("aggregate " + call.Func + " with several arguments")
	}
	if call.Filter != nil {
		ev, err := expr.Compile(call.Filter, a.evalMem)
		if err != nil {
			return err
		}
		a.filters[i] = ev
	}
	if call.Distinct && a.args[i] != nil {
		a.seen[i] = map[string]struct{}{}
		if !a.noDistinctInts && intDistinctType(a.args[i].Type()) {
			a.seenInts[i] = newPairSet()
			a.newBytes += pairSetMin * pairSlotBytes
		}
	}
	acc, err := newAccumulator(call, argType, a.env.Mem)
	if err != nil {
		return err
	}
	a.accs[i] = acc
	return nil
}

func (a *Aggregate) addGroups(n int) {
	a.nGroups += n
	for _, acc := range a.accs {
		acc.resize(a.nGroups)
	}
}

// Next implements exec.Operator. The first call consumes the whole input.
func (a *Aggregate) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !a.done {
		a.done = true
		if err := a.consumeAll(ctx); err != nil {
			return nil, err
		}
		res, err := a.result(ctx)
		if err != nil {
			return nil, err
		}
		a.out.push(res)
	}
	return a.out.next(), nil
}

func (a *Aggregate) consumeAll(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := a.input.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		err = a.consume(ctx, b)
		b.Release()
		if err != nil {
			return err
		}
	}
}

// consume folds one batch into the groups.
func (a *Aggregate) consume(ctx context.Context, b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if a.pre != nil {
		return a.consumeFiltered(ctx, b)
	}
	return a.consumeRows(ctx, b, nil)
}

// consumeRows folds the rows of b with include set (nil: every row) into the groups.
func (a *Aggregate) consumeRows(ctx context.Context, b arrow.RecordBatch, include []bool) error {
	groups, err := a.assignGroups(ctx, b, include)
	if err != nil {
		return err
	}
	in, err := a.evalInputs(ctx, b)
	if err != nil {
		return err
	}
	defer in.release()
	return a.fold(in, groups, include)
}

// fold folds the evaluated inputs of a batch's rows with include set (nil: every row),
// whose groups are groups, into the aggregates.
func (a *Aggregate) fold(in aggInputs, groups []int32, include []bool) error {
	if in.lanes {
		a.foldLanes(in, groups, include)
	}
	for i := range a.aggs {
		if in.lanes && a.lanes.handled[i] {
			continue
		}
		if err := a.updateAgg(i, in.args[i], in.masks[i], groups, include); err != nil {
			return err
		}
	}
	grown := a.newBytes
	a.newBytes = 0
	return a.res.TryGrow(grown)
}

// assignGroups returns the group of every row of b with include set (nil: every row),
// creating groups for new keys; the other rows get group 0. The result is reused by the
// next batch.
func (a *Aggregate) assignGroups(ctx context.Context, b arrow.RecordBatch, include []bool) ([]int32, error) {
	n := int(b.NumRows())
	a.groupBuf = grow(a.groupBuf[:0], n)[:n]
	groups := a.groupBuf
	clear(groups)
	if len(a.keyEvals) == 0 {
		return groups, nil
	}
	keys := make([]arrow.Array, 0, len(a.keyEvals))
	defer func() { releaseArrays(keys) }()
	for _, ev := range a.keyEvals {
		k, err := ev.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if a.small.assign(keys, groups, include) {
		return groups, nil
	}
	var firstRows []int32
	var keyBytes int64
	if a.ints != nil && !a.ints.matches(keys) {
		if err := a.dropIntKeys(); err != nil {
			return nil, err
		}
	}
	var err error
	if a.ints != nil {
		firstRows, err = a.ints.assign(keys, groups, include, nil)
		keyBytes = a.ints.groupBytes()
	} else {
		firstRows, keyBytes, err = a.mapAssign(keys, groups, include)
	}
	if err != nil {
		return nil, err
	}
	a.small.learn(keys, groups, include)
	if len(firstRows) > 0 {
		a.newBytes += int64(len(firstRows)) * (keyBytes + aggStateBytes*int64(len(a.aggs)))
		a.addGroups(len(firstRows))
		return groups, a.keepKeys(ctx, keys, firstRows)
	}
	return groups, nil
}

// mapAssign is assignGroups through the general map of encoded keys: it returns the rows
// that started new groups and the per-group bytes of their keys in the map.
func (a *Aggregate) mapAssign(keys []arrow.Array, groups []int32, include []bool) ([]int32, int64, error) {
	if err := a.rowKeys.Encode(keys, len(groups)); err != nil {
		return nil, 0, err
	}
	var firstRows []int32
	maxKey := 0
	var prevKey []byte
	prevGroup := int32(-1)
	for r := range groups {
		if include != nil && !include[r] {
			continue
		}
		key := a.rowKeys.Key(r)
		if prevGroup >= 0 && bytes.Equal(key, prevKey) { // runs of one key: no map lookup
			groups[r] = prevGroup
			continue
		}
		g, ok := a.groups[string(key)]
		if !ok {
			g = int32(a.nGroups + len(firstRows))
			a.groups[string(key)] = g
			firstRows = append(firstRows, int32(r))
			maxKey = max(maxKey, len(key))
		}
		groups[r] = g
		prevKey, prevGroup = key, g
	}
	return firstRows, int64(maxKey) + mapEntryBytes, nil
}

// keepKeys saves the key values of the rows that started new groups.
// Fixed-width and string keys are taken by kernel.Take, the others by arrow's compute.Take.
func (a *Aggregate) keepKeys(ctx context.Context, keys []arrow.Array, rows []int32) error {
	var idx arrow.Array
	defer func() {
		if idx != nil {
			idx.Release()
		}
	}()
	for i, k := range keys {
		if t, ok := kernel.Take(a.env.Mem, k, rows); ok {
			a.keyChunks[i] = append(a.keyChunks[i], t)
			continue
		}
		if idx == nil {
			bld := array.NewInt32Builder(a.env.Mem)
			bld.AppendValues(rows, nil)
			idx = bld.NewArray()
			bld.Release()
		}
		t, err := compute.TakeArray(compute.WithAllocator(ctx, a.env.Mem), k, idx)
		if err != nil {
			return dberr.Wrap(dberr.Internal, err, "aggregate: keep group keys")
		}
		a.keyChunks[i] = append(a.keyChunks[i], t)
	}
	return nil
}

// updateAgg folds arg (nil for count(*)) into aggregate i for the rows set in both mask
// (its FILTER clause) and rows (nil: every row).
func (a *Aggregate) updateAgg(i int, arg arrow.Array, mask []bool, groups []int32, rows []bool) error {
	include := andMasks(mask, rows)
	var err error
	if a.seen[i] != nil {
		if include, err = a.firstSeen(i, arg, groups, include, keepsNulls(a.aggs[i].Func)); err != nil {
			return err
		}
		if a.partial {
			return a.keepDistinct(i, arg, groups, include)
		}
	}
	if err := a.accs[i].update(groups, arg, include); err != nil {
		return err
	}
	a.accountValues(i)
	return nil
}

// accountValues adds the growth of aggregate i's kept values (sizedAcc) to newBytes.
func (a *Aggregate) accountValues(i int) {
	s, ok := a.accs[i].(sizedAcc)
	if !ok {
		return
	}
	if a.accBytes == nil {
		a.accBytes = make([]int64, len(a.accs))
	}
	now := s.stateBytes()
	if d := now - a.accBytes[i]; d < 0 {
		a.res.Shrink(-d) // compacted
	} else {
		a.newBytes += d
	}
	a.accBytes[i] = now
}

// firstSeen narrows include to the rows whose (group, value) pair is new (DISTINCT). NULL
// values are dropped unless keepNulls (list, first and last keep one NULL, as in DuckDB).
func (a *Aggregate) firstSeen(i int, arg arrow.Array, groups []int32, include []bool, keepNulls bool) ([]bool, error) {
	if a.seenInts[i] != nil {
		return a.firstSeenInts(i, arg, groups, include, keepNulls)
	}
	enc, err := kernel.NewKeyEncoder(arg)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(groups))
	for r, g := range groups {
		if (include != nil && !include[r]) || (!keepNulls && !kernel.IsValid(arg, r)) {
			continue
		}
		buf := binary.LittleEndian.AppendUint32(a.keyBuf[:0], uint32(g))
		buf = enc(buf, r)
		a.keyBuf = buf
		if _, dup := a.seen[i][string(buf)]; !dup {
			a.seen[i][string(buf)] = struct{}{}
			a.newBytes += int64(len(buf)) + mapEntryBytes
			out[r] = true
		}
	}
	return out, nil
}

// result builds the output batch: the keys of every group, then each aggregate.
func (a *Aggregate) result(ctx context.Context) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, a.schema.NumFields())
	fail := func(err error) (arrow.RecordBatch, error) {
		releaseArrays(cols)
		return nil, err
	}
	for i, chunks := range a.keyChunks {
		col, err := a.concatKeys(chunks, a.schema.Field(i).Type)
		if err != nil {
			return fail(err)
		}
		cols = append(cols, col)
	}
	for i, acc := range a.accs {
		dt := a.schema.Field(len(a.keyChunks) + i).Type
		col, err := acc.finish(a.env.Mem, dt)
		if err != nil {
			return fail(err)
		}
		if col, err = castTo(ctx, a.env, col, dt); err != nil {
			return fail(err)
		}
		cols = append(cols, col)
	}
	return newBatchOwned(a.schema, cols, int64(a.nGroups)), nil
}

func (a *Aggregate) concatKeys(chunks []arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if len(chunks) == 0 {
		return kernel.ArrayOfNull(a.env.Mem, dt, 0), nil
	}
	col, err := array.Concatenate(chunks, a.env.Mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "aggregate: concatenate group keys")
	}
	return col, nil
}

// castTo converts col (owned) to dt if it has another type.
func castTo(ctx context.Context, env exec.Env, col arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(col.DataType(), dt) {
		return col, nil
	}
	defer col.Release()
	out, err := compute.CastArray(compute.WithAllocator(ctx, env.Mem), col, compute.SafeCastOptions(dt))
	if err != nil {
		return nil, dberr.Wrap(dberr.Conversion, err, "aggregate result %s to %s", col.DataType(), dt)
	}
	return out, nil
}

// Close implements exec.Operator.
func (a *Aggregate) Close() error {
	for i, chunks := range a.keyChunks {
		releaseArrays(chunks)
		a.keyChunks[i] = nil
	}
	for _, acc := range a.accs {
		if r, ok := acc.(releaser); ok {
			r.release()
		}
	}
	for i, chunks := range a.distinct {
		for _, c := range chunks {
			c.arg.Release()
		}
		a.distinct[i] = nil
	}
	a.out.release()
	a.res.Free()
	if a.evalMem != nil {
		defer a.evalMem.Close()
	}
	if a.inputMem != nil {
		defer a.inputMem.Close()
	}
	if a.input == nil {
		return nil
	}
	return a.input.Close()
}
