// Package exec runs logical plans over Arrow record batches.
//
// This root package is the leaf of the executor: the Operator contract and Env, the settings
// every operator receives. Operators live in exec/ops, expression evaluation in exec/expr,
// and exec/build turns a plan.Node into a tree of operators.
package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Operator is one node of a running query: a pull-based stream of record batches.
//
// The contract:
//   - Schema is known before Open, and every batch Next returns has exactly that schema.
//   - Open is called once before Next; it opens the operator's inputs.
//   - Next returns the next batch, or (nil, nil) when the stream is exhausted. The caller owns
//     the returned batch and must Release it. Batches may have zero rows only if a stream
//     would otherwise be empty; consumers must accept them anyway.
//   - Operators check ctx at batch boundaries and return ctx.Err() once it is cancelled.
//   - Close releases everything the operator holds, including its inputs. It is safe to call
//     without Open and more than once.
type Operator interface {
	Schema() *arrow.Schema
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}

// Env carries the settings and resources of one query's execution.
type Env struct {
	// Mem allocates every Arrow buffer the query creates.
	Mem memory.Allocator
	// BatchSize is the target number of rows per batch.
	BatchSize int
	// Parallelism is the number of worker goroutines a pipeline may use (at least 1).
	Parallelism int
	// MemoryLimit caps, in bytes, what the query's growing operators (hash aggregate, hash
	// join build, sort, TopN, set operations, DISTINCT) may reserve from Pool; 0 means
	// unlimited. Going over fails the query with a dberr.OutOfMemory error.
	MemoryLimit int64
	// Pool is the query's memory pool. When it is nil, exec/build.Build creates a fresh one
	// from MemoryLimit for the tree it builds, so an Env kept by a server for every query
	// still gives each query its own pool; set it to choose the pool (and read its Peak).
	// Operators built directly without a pool account nothing.
	Pool *MemoryPool
	// Analyze, when set, makes exec/build wrap every operator in an exec.Analyzed that
	// records rows, batches, time and bytes read for EXPLAIN ANALYZE.
	Analyze bool
	// Profile collects the operators' stats when Analyze is set; exec/build creates it.
	Profile *Profile
	// BuildState is what exec/build planned for the tree it is building (run-time join
	// filters, shared subplans); exec/build sets it at the root of a Build and only
	// exec/build reads it.
	BuildState any
}

// DefaultBatchSize is the batch size used when Env.BatchSize is zero.
const DefaultBatchSize = 16 * 1024

// WithDefaults returns env with zero fields replaced by defaults.
func (env Env) WithDefaults() Env {
	if env.Mem == nil {
		env.Mem = memory.DefaultAllocator
	}
	if env.BatchSize <= 0 {
		env.BatchSize = DefaultBatchSize
	}
	if env.Parallelism <= 0 {
		env.Parallelism = 1
	}
	return env
}
