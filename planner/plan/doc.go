// Package plan holds the logical plan: the relational operators (nodes) and the bound scalar
// expressions the binder produces, the Substrait consumer rebuilds, the optimizer rewrites
// and the executor runs.
//
// It is a leaf: it imports only Arrow and catalog, so exec can read plans without importing
// the rest of the planner. Nodes are immutable once built; rewrites build new nodes.
//
// Columns are referred to by position in the node's input schema (ColumnRef.Index), as in
// Substrait, never by name: names exist only for printing.
package plan
