package planner

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// Planner plans SQL and Substrait statements against one catalog. It is safe for
// concurrent use: it holds no per-statement state.
type Planner struct {
	cat catalog.Catalog
}

// New returns a planner over cat.
func New(cat catalog.Catalog) *Planner { return &Planner{cat: cat} }

// Prepared is one bound statement.
type Prepared struct {
	// Substrait is the serialized Substrait plan, every table read pinned to its resolved
	// version (a LanceRead enhancement on the read relation's advanced extension). It is
	// nil when PlanSQL met placeholders: plan again with PlanSQLWithParams.
	Substrait []byte
	// Schema is the result schema.
	Schema *arrow.Schema
	// Params has one field per placeholder (? or $n), typed from its context as DuckDB
	// types it (utf8 or int64 where nothing else decides). Empty without placeholders.
	// PlanSQLWithParams binds values for them.
	Params *arrow.Schema
	// Analyze marks EXPLAIN ANALYZE: Substrait is the query to run and profile, and the
	// result (Schema is ExplainSchema) is the profile, which the executor produces.
	Analyze bool
	// IsWrite marks INSERT, UPDATE and DELETE (write.go): Schema is NoColumns, Substrait is
	// nil and Write holds the plan to execute (nil while placeholders have no values).
	IsWrite bool
	// Write is the logical write plan (a plan.Insert, plan.Delete or plan.Update whose
	// source is optimized); its schema is plan.CountSchema.
	Write plan.Node
	// Logical is the unoptimized logical plan Substrait encodes (what Logical would rebuild
	// from it; the Substrait round trip preserves it), or nil. A caller that runs the
	// statement once, right after planning, may optimize and run it instead of decoding
	// Substrait again; it must not be run twice (the optimizer may rewrite it in place).
	Logical plan.Node
}

// PlanSQL parses and binds one SQL statement, resolving table versions through the catalog,
// and produces its Substrait plan. EXPLAIN <query> is planned as a constant one-row result
// in DuckDB's shape (explain_key, explain_value: "physical_plan" and the optimized plan's
// canonical text), so any Flight SQL client can run it.
func (p *Planner) PlanSQL(ctx context.Context, sql string) (*Prepared, error) {
	stmt, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	return p.planStatement(ctx, stmt, nil)
}

// planStatement plans stmt; values nil means "no values bound": a statement with
// placeholders then returns only its schemas (Substrait nil).
func (p *Planner) planStatement(ctx context.Context, stmt ast.Statement, values []scalar.Scalar) (*Prepared, error) {
	if bind.IsWrite(stmt) {
		return p.planWrite(ctx, stmt, values)
	}
	var n plan.Node
	params := arrow.NewSchema(nil, nil)
	if e, ok := stmt.(*ast.Explain); ok {
		if e.Analyze {
			if bind.IsWrite(e.Query) { // write.go
				return nil, errAnalyzeWrite
			}
			inner, err := p.planStatement(ctx, e.Query, values)
			if err != nil || inner.Substrait == nil {
				return inner, err
			}
			return &Prepared{Substrait: inner.Substrait, Schema: ExplainSchema, Params: inner.Params, Analyze: true, Logical: inner.Logical}, nil
		}
		text, err := p.explainStatement(ctx, e.Query, values)
		if err != nil {
			return nil, err
		}
		n = explainValues(text)
	} else {
		var types []arrow.DataType
		var err error
		if n, types, err = bind.BindParams(ctx, p.cat, stmt, values); err != nil {
			return nil, err
		}
		if values == nil && len(types) > 0 {
			// Placeholders remain: report the schemas, plan when values arrive.
			return &Prepared{Schema: n.Schema(), Params: paramSchema(types)}, nil
		}
		params = paramSchema(types)
	}
	b, err := substrait.Marshal(n)
	if err != nil {
		return nil, err
	}
	return &Prepared{Substrait: b, Schema: n.Schema(), Params: params, Logical: n}, nil
}

// paramSchema names the parameters $1, $2, ... with their inferred types.
func paramSchema(types []arrow.DataType) *arrow.Schema {
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: "$" + strconv.Itoa(i+1), Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// PlanSQLWithParams plans a statement with placeholders (? or $n) and the values of a
// prepared statement's parameters: each value is cast to its parameter's inferred type
// (Prepared.Params of PlanSQL) and the plan is fully bound. The number of values must
// equal the number of parameters.
func (p *Planner) PlanSQLWithParams(ctx context.Context, sql string, params []scalar.Scalar) (*Prepared, error) {
	stmt, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = []scalar.Scalar{}
	}
	return p.planStatement(ctx, stmt, params)
}

// ExplainSchema is the result schema of EXPLAIN, as DuckDB returns it.
var ExplainSchema = arrow.NewSchema([]arrow.Field{
	{Name: "explain_key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "explain_value", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func explainValues(text string) plan.Node {
	return plan.NewValues(ExplainSchema, [][]plan.Expr{{
		&plan.Literal{Value: scalar.NewStringScalar("physical_plan")},
		&plan.Literal{Value: scalar.NewStringScalar(text)},
	}})
}

// PlanSubstrait validates a client's Substrait plan (CommandStatementSubstraitPlan) by
// consuming it, and re-produces it with every table read pinned: reads that name no version
// are pinned to the latest version now.
func (p *Planner) PlanSubstrait(ctx context.Context, substraitPlan []byte) (*Prepared, error) {
	n, err := p.Logical(ctx, substraitPlan)
	if err != nil {
		return nil, err
	}
	b, err := substrait.Marshal(n)
	if err != nil {
		return nil, err
	}
	return &Prepared{Substrait: b, Schema: n.Schema(), Params: arrow.NewSchema(nil, nil), Logical: n}, nil
}

// Logical is the Substrait consumer: it rebuilds the logical plan, loading each table at
// its pinned version. The result is not optimized; pass it to Optimize.
func (p *Planner) Logical(ctx context.Context, substraitPlan []byte) (plan.Node, error) {
	return substrait.Unmarshal(ctx, p.cat, substraitPlan)
}

// Optimize rewrites a logical plan with the optimizer's rules (planner/optimize).
func Optimize(n plan.Node) plan.Node { return optimize.Optimize(n) }

// Explain plans an SQL query (with or without a leading EXPLAIN) the way it runs: SQL →
// Substrait → logical plan → optimizer, and returns the canonical plan text.
func (p *Planner) Explain(ctx context.Context, sql string) (string, error) {
	stmt, err := parse.Parse(sql)
	if err != nil {
		return "", err
	}
	if e, ok := stmt.(*ast.Explain); ok {
		stmt = e.Query
	}
	return p.explainStatement(ctx, stmt, nil)
}

// explainStatement plans stmt the way it runs and renders the optimized plan.
func (p *Planner) explainStatement(ctx context.Context, stmt ast.Statement, values []scalar.Scalar) (string, error) {
	if bind.IsWrite(stmt) { // write.go
		return p.explainWrite(ctx, stmt, values)
	}
	var n plan.Node
	var err error
	if values == nil {
		n, err = bind.Bind(ctx, p.cat, stmt)
	} else {
		n, _, err = bind.BindParams(ctx, p.cat, stmt, values)
	}
	if err != nil {
		return "", err
	}
	b, err := substrait.Marshal(n)
	if err != nil {
		return "", err
	}
	n, err = p.Logical(ctx, b)
	if err != nil {
		return "", err
	}
	return plan.Explain(Optimize(n)), nil
}

// SubstraitJSON renders a serialized Substrait plan as indented protobuf JSON, for
// debugging and golden files.
func SubstraitJSON(b []byte) (string, error) {
	var pl pb.Plan
	if err := proto.Unmarshal(b, &pl); err != nil {
		return "", dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan")
	}
	out, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(&pl)
	if err != nil {
		return "", dberr.Wrap(dberr.Internal, err, "render Substrait plan")
	}
	return string(out), nil
}
