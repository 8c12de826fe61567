package sqllogic

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/slt"
	"github.com/flightd/flightd/planner"
)

// QueryFunc runs one SQL statement in flightd and returns its rendered result.
type QueryFunc func(ctx context.Context, sql string) (types string, rows [][]string, err error)

// Store receives the table changes setup statements make (MemStore; for Lance the oracle
// writes the datasets itself and the store does nothing).
type Store interface {
	Apply(ctx context.Context, ch Change) error
}

// Engine is flightd as a slt.Engine: setup statements run in the oracle and reach flightd
// through the store; every other statement and every query runs through Run.
type Engine struct {
	Oracle *Oracle
	Store  Store
	Run    QueryFunc
}

var _ slt.Engine = (*Engine)(nil)

// Exec implements slt.Engine.
func (e *Engine) Exec(ctx context.Context, sql string) error {
	if !IsSetup(sql) {
		_, _, err := e.Run(ctx, sql)
		return err
	}
	changes, err := e.Oracle.Apply(ctx, sql)
	if err != nil {
		return fmt.Errorf("setup statement: %w", err)
	}
	defer releaseChanges(changes)
	for _, ch := range changes {
		if err := e.Store.Apply(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

// Query implements slt.Engine.
func (e *Engine) Query(ctx context.Context, sql string) (string, [][]string, error) {
	return e.Run(ctx, sql)
}

// InProcess runs statements through flightsrv.(*Server).Execute: the whole stack without
// the network.
func InProcess(srv *flightsrv.Server) QueryFunc {
	return func(ctx context.Context, sql string) (string, [][]string, error) {
		op, err := srv.Execute(ctx, sql)
		if err != nil {
			return "", nil, err
		}
		return drain(ctx, op)
	}
}

// Direct runs statements through the planner and executor as flightsrv does, with the
// optimizer switched off when optimize is false (the optimizer_off configuration).
func Direct(cat catalog.Catalog, env exec.Env, optimize bool) QueryFunc {
	p := planner.New(cat)
	env = env.WithDefaults()
	return func(ctx context.Context, sql string) (string, [][]string, error) {
		prep, err := p.PlanSQL(ctx, sql)
		if err != nil {
			return "", nil, err
		}
		node, err := p.Logical(ctx, prep.Substrait)
		if err != nil {
			return "", nil, err
		}
		if optimize {
			node = planner.Optimize(node)
		}
		op, err := build.Build(node, env)
		if err != nil {
			return "", nil, err
		}
		if err := op.Open(ctx); err != nil {
			return "", nil, errors.Join(err, op.Close())
		}
		return drain(ctx, op)
	}
}

// drain reads an opened operator to the end, closes it and renders the rows.
func drain(ctx context.Context, op exec.Operator) (_ string, _ [][]string, err error) {
	var batches []arrow.RecordBatch
	defer func() {
		releaseBatches(batches)
		if cerr := op.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close operator: %w", cerr))
		}
	}()
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return "", nil, err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
	}
	return slt.Types(op.Schema()), slt.RenderBatches(batches), nil
}
