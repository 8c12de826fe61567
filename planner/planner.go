package planner

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
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
	// version (a LanceRead enhancement on the read relation's advanced extension).
	Substrait []byte
	// Schema is the result schema.
	Schema *arrow.Schema
}

// PlanSQL parses and binds one SQL statement, resolving table versions through the catalog,
// and produces its Substrait plan. EXPLAIN is not planned here (see Explain).
func (p *Planner) PlanSQL(ctx context.Context, sql string) (*Prepared, error) {
	stmt, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	if _, ok := stmt.(*ast.Explain); ok {
		return nil, dberr.NotSupported("EXPLAIN as a query (use the planner's Explain)")
	}
	n, err := bind.Bind(ctx, p.cat, stmt)
	if err != nil {
		return nil, err
	}
	b, err := substrait.Marshal(n)
	if err != nil {
		return nil, err
	}
	return &Prepared{Substrait: b, Schema: n.Schema()}, nil
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
	return &Prepared{Substrait: b, Schema: n.Schema()}, nil
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
	n, err := bind.Bind(ctx, p.cat, stmt)
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
