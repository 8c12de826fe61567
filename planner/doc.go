// Package planner is flightd's query front end: it turns SQL text, or a Substrait plan a
// client sends, into a logical plan the executor runs.
//
// # Pipeline
//
//	SQL text
//	   │ parse   (planner/parse: hand-written lexer + recursive descent, DuckDB dialect,
//	   │          time travel AT (VERSION => …) and its aliases, positions on every node)
//	   ▼
//	AST        (planner/ast: untyped)
//	   │ bind    (planner/bind: catalog lookups, AT clause → one concrete version,
//	   │          names, DuckDB implicit casts via planner/functions, aggregates,
//	   │          ORDER BY by alias/ordinal/expression, DISTINCT, LIMIT)
//	   ▼
//	logical plan (planner/plan)  ──produce──▶  Substrait bytes ◀── CommandStatementSubstraitPlan
//	                             (planner/substrait)   │
//	                                                   │ consume (Logical): load each table
//	                                                   ▼ at its pinned version
//	                                            logical plan
//	                                                   │ Optimize (planner/optimize)
//	                                                   ▼
//	                                            exec/build → operators
//
// PlanSQL stops at Substrait bytes (plus the result schema); that is what a FlightInfo's
// tickets carry. Execution always starts again from the bytes with Logical, so every SQL
// query passes through the Substrait consumer, and client Substrait plans take exactly the
// same path after PlanSubstrait has validated and pinned them.
//
// # Why our own parser
//
// No Go SQL parser accepts DuckDB's dialect or any time-travel syntax, and rewriting SQL
// text around a Postgres parser is fragile. The parser is ~1k lines, pure Go, reports
// line and column, and rejects everything outside the supported subset with a
// "not supported yet: <construct>" error (dberr.NotImplemented) instead of dropping it.
//
// # Versions are resolved once
//
// The binder evaluates the AT clause's constant expression once and asks the catalog for
// that table version (a version number, a tag, or the newest version committed at or
// before a timestamp; without a clause, the latest). The concrete version number goes
// into the plan, so a plan is reproducible and a query sees one snapshot per table for
// its whole life, whichever replica runs its tickets.
//
// # How the version travels in Substrait
//
// Substrait has no field for a table version. Each ReadRel of a NamedTable carries a
// flightd.v1.LanceRead message (proto/flightd/v1/plan.proto, generated into
// internal/flightdpb) packed as an Any in the ReadRel's advanced_extension.enhancement.
// An enhancement "alters semantics and cannot be ignored", which is right: a consumer that
// ignored it would read the wrong snapshot. A dedicated message rather than a wrapper type
// names what the number means and leaves room for the scan's row-limit hint (field 2).
// The consumer also accepts the message on NamedTable.advanced_extension, where the
// Substrait docs suggest table metadata should live (substrait-go cannot set it yet).
//
// # Why we write Substrait protobuf directly
//
// The producer and consumer work on the substrait-protobuf messages that substrait-go v8
// is built on, rather than on substrait-go's plan builder: the builder cannot set a
// ReadRel filter, its Remap mutates shared relations, its RecordType ignores projection
// masks, and its consumer rejects plans that declare extensions by URI only (older
// producers). Plans we produce are still checked against substrait-go (plan.FromProto) in
// tests, with our own function extension (extension:flightd:functions, functions.yaml)
// loaded. Functions use the standard extensions where one has the overload; the others go
// to our extension with "any" arguments. Column types are never taken from the plan: the
// consumer reloads each table from the catalog and retypes every call with the binder's
// rules, so an Arrow type Substrait cannot express (unsigned integers, fixed-size lists)
// costs nothing unless it appears in a literal or a cast.
//
// Projections and aggregates name their outputs in RelCommon.hint.output_names so that a
// plan round-trips to the same EXPLAIN text. Scan projection uses the ReadRel's
// projection mask; the scan filter is written over the base schema, as the spec requires.
//
// # Names
//
// Column and table names match exactly first and then case-insensitively, as in DuckDB.
// Tables may be qualified with the one catalog and schema flightd reports to Flight SQL
// clients (flightd.main.t, main.t). Output columns are named the way DuckDB names them
// for the common cases (the column's own name, the alias, count_star(), "(a + b)").
//
// # Queries
//
// Joins (inner, left, right, full, cross, semi, anti; ON, USING, NATURAL, comma joins),
// derived tables with column aliases, non-recursive CTEs (inlined at each reference), set
// operations (UNION/INTERSECT/EXCEPT [ALL], columns cast to DuckDB's common type), VALUES,
// SELECT without FROM (a one-row, zero-column Values), * EXCLUDE/REPLACE, GROUP BY ALL,
// ROLLUP/CUBE/GROUPING SETS (the UNION ALL of one aggregate per grouping set, the other
// grouping columns NULL), DISTINCT ON (row_number() over the ON keys in ORDER BY order = 1),
// and window functions (OVER, named WINDOWs, ROWS/RANGE/GROUPS frames, QUALIFY): one
// plan.Window above the FROM clause or the aggregate, below the projection. Frame offsets
// are constants or, as in DuckDB, expressions over the row. In Substrait a Window is a
// ProjectRel whose expressions are all window functions; what Substrait's window function
// cannot say (GROUPS frames, offsets that are not non-negative integer literals, FILTER)
// travels in flightd function options (planner/substrait/window_extras.go).
//
// Subqueries are decorrelated at bind time. EXISTS, NOT EXISTS and IN (subquery) that are
// top-level WHERE conjuncts become semi and anti joins; elsewhere, and for NOT IN (whose
// NULL semantics need it), a mark join supplies a boolean column. Scalar subqueries go
// through the single_value aggregate (an error for more than one row, as in DuckDB), grouped
// by the correlation keys, then a cross join (uncorrelated) or a left join on the keys
// (correlated; a correlated count is coalesced to 0). Correlations are the subquery's WHERE
// conjuncts that read outer columns: equalities between an inner and an outer expression
// become join keys; for EXISTS and IN (without aggregates in the subquery) any other such
// conjunct becomes the join's residual condition, the subquery outputting the inner columns
// it reads. Uncorrelated scalar subqueries in HAVING are cross joined onto the aggregate
// once it is built (planner/bind/having.go).
//
// Decimal arithmetic follows DuckDB's typing: + and - at the larger scale with one more
// digit, * at the sum of precisions and scales (precisions capped at 38), / as DOUBLE; the
// optimizer factors conjuncts common to every branch of an OR out of it (so a join equality
// repeated in each branch becomes a join key).
//
// EXPLAIN <query> through PlanSQL returns one row (explain_key, explain_value) holding
// "physical_plan" and the optimized plan's canonical text, as DuckDB's EXPLAIN does.
//
// # Parameters
//
// PlanSQL of a statement with ? or $n placeholders returns the result schema and
// Prepared.Params (one field per parameter, typed from its context the way DuckDB does:
// the type it meets in a comparison, cast or function, int64 in LIMIT/OFFSET and
// AT (VERSION => ?), utf8 otherwise) but no Substrait: PlanSQLWithParams binds values,
// cast to those types, and produces the fully bound plan.
//
// # Functions
//
// planner/functions holds the canonical names the executor implements (plan.Call.Func and
// plan.AggCall.Func) with DuckDB's result types and implicit casts; aliases (substr, pow,
// now, stddev, array_agg, ...) and shorthands (year(x) is date_part('year', x)) map to them
// in the binder. a || b is concat(a, b) wrapped so that a NULL operand gives NULL. Functions
// go to a standard Substrait extension when it declares the exact signature, otherwise to
// flightd's extension (functions.yaml).
//
// Also: WITH RECURSIVE (a fixpoint operator over a working table, UNION or UNION ALL, capped
// at 10,000 rounds), GROUPING(), LIKE ... ESCAPE, GLOB and SIMILAR TO (rewritten to anchored
// regexp_matches), list literals and FLOAT[N] array types with DuckDB's vector distance
// functions, x op ANY/SOME/ALL (subquery), scalar subqueries correlated by any comparison
// (decorrelated over a duplicate-free domain of the outer values), LATERAL subqueries in
// comma, CROSS, INNER and LEFT ... ON true joins, and the writes INSERT, UPDATE, DELETE,
// CREATE TABLE [AS], CREATE/DROP INDEX and ALTER INDEX ... OPTIMIZE (planner/write.go: a
// logical write plan, not Substrait).
//
// # Not supported yet
//
// Frame EXCLUDE and IGNORE NULLS, window functions in correlated subqueries, struct
// literals, list literals with non-constant items, table functions, correlated subqueries
// with GROUP BY/HAVING/DISTINCT/ORDER BY/LIMIT, non-equality correlations in EXISTS/IN/ANY
// over aggregating subqueries, RIGHT/FULL/SEMI/ANTI/NATURAL/USING joins with a lateral
// subquery, correlation more than one level up, subqueries in aggregate queries' SELECT
// lists and in ON, correlated or EXISTS/IN subqueries in HAVING, EXPLAIN ANALYZE of writes,
// MERGE, ALTER TABLE, DROP TABLE. Each fails with a NotImplemented error naming it.
package planner
