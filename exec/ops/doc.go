// Package ops holds the executor's physical operators, one per file: Scan (parallel,
// morsel-driven, ordered; NewSharedScans for unordered worker scans), Filter, Project, hash
// Aggregate and its morsel-parallel form ParallelAggregate (partial state per worker, then a
// merge), Sort, TopN (ORDER BY … LIMIT), Limit, HashJoin, NestedLoopJoin, SetOp and Values.
// Each implements exec.Operator over arrow.RecordBatch and allocates only from the exec.Env
// allocator it was built with.
//
// Memory: the operators whose state grows with their input (Aggregate, ParallelAggregate,
// HashJoin and NestedLoopJoin build sides, Sort, TopN, SetOp) reserve it from Env.Pool
// before they keep it (memory.go has the size estimates) and free the reservation in Close.
// A refused reservation ends the query with a dberr.OutOfMemory error that names the
// operator and the limit. Nothing spills yet.
package ops
