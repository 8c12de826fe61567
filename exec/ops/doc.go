// Package ops holds the executor's physical operators, one per file: Scan (parallel,
// morsel-driven, ordered), Filter, Project, hash Aggregate, Sort, Limit, HashJoin,
// NestedLoopJoin, SetOp and Values. Each implements exec.Operator over arrow.RecordBatch and
// allocates only from the exec.Env allocator it was built with.
package ops
