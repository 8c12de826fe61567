package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
)

// Writes: INSERT, UPDATE and DELETE run through CommandStatementUpdate and
// CommandPreparedStatementUpdate (DoPut; the result is the number of rows affected) and, for
// clients that send every statement as a query (ADBC's cursor.execute, DBeaver), through
// CommandStatementQuery and prepared queries: the write runs once, when the FlightInfo is
// asked for, and the ticket carries its result, one row "Count" (DuckDB's answer to a
// write). Each execution commits one new table version.

// maxParamRows bounds the parameter rows of one executemany.
const maxParamRows = 1 << 16

// DoPutCommandStatementUpdate runs an ad-hoc write and returns the rows it affected.
func (s *Server) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return 0, dberr.NotSupported("transactions")
	}
	p, err := s.planner.PlanSQL(ctx, cmd.GetQuery())
	if err != nil {
		return 0, err
	}
	return s.executeUpdate(ctx, p)
}

// DoPutPreparedStatementUpdate runs a prepared write once per row of parameter values the
// stream carries (once without parameters; with the values bound earlier through
// DoPutPreparedStatementQuery when the stream has none) and returns the total of the rows
// affected. Each execution commits its own table version.
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	h, err := s.decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	rows, err := paramRows(rdr)
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		p, err := s.planPrepared(ctx, cmd.GetPreparedStatementHandle())
		if err != nil {
			return 0, err
		}
		return s.executeUpdate(ctx, p)
	}
	var total int64
	for _, values := range rows {
		p, err := s.planner.PlanSQLWithParams(ctx, h.sql, values)
		if err != nil {
			return total, err
		}
		n, err := s.executeUpdate(ctx, p)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// paramRows reads every row of parameter values of a DoPut stream; none when the stream has
// no columns or no rows.
func paramRows(rdr flight.MessageReader) ([][]scalar.Scalar, error) {
	var rows [][]scalar.Scalar
	for rdr.Next() {
		b := rdr.RecordBatch()
		if b.NumCols() == 0 {
			continue
		}
		if int64(len(rows))+b.NumRows() > maxParamRows {
			return nil, dberr.New(dberr.InvalidInput, "more than %d rows of parameters in one execution", maxParamRows)
		}
		for r := range int(b.NumRows()) {
			row := make([]scalar.Scalar, b.NumCols())
			for c, col := range b.Columns() {
				v, err := scalar.GetScalar(col, r)
				if err == nil {
					v, err = ownedScalar(v)
				}
				if err != nil {
					return nil, dberr.Wrap(dberr.InvalidInput, err, "parameter %d of row %d", c+1, len(rows)+1)
				}
				row[c] = v
			}
			rows = append(rows, row)
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, fmt.Errorf("read parameters: %w", err)
	}
	return rows, nil
}

// ownedScalar returns v, or for a scalar that shares the stream's buffers (which the reader
// reuses) a copy in Go-allocated memory, releasing v: the copy may end up as a literal in a
// plan, which nobody releases, and the garbage collector frees it.
func ownedScalar(v scalar.Scalar) (scalar.Scalar, error) {
	rel, ok := v.(scalar.Releasable)
	if !ok {
		return v, nil
	}
	defer rel.Release()
	arr, err := scalar.MakeArrayFromScalar(v, 1, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return scalar.GetScalar(arr, 0)
}

// executeUpdate runs a planned write and returns the rows it affected.
func (s *Server) executeUpdate(ctx context.Context, p *planner.Prepared) (int64, error) {
	op, err := s.openWrite(ctx, p)
	if err != nil {
		return 0, err
	}
	defer op.Close()
	b, err := op.Next(ctx)
	if err != nil {
		return 0, err
	}
	if b == nil {
		return 0, dberr.New(dberr.Internal, "write produced no row count")
	}
	defer b.Release()
	n := b.Column(0).(*array.Int64).Value(0)
	s.log.Info("write", "rows", n, "user", UserFromContext(ctx))
	return n, nil
}

// openWrite builds and opens the operator of a planned write. It refuses queries and
// statements whose placeholders have no values.
func (s *Server) openWrite(ctx context.Context, p *planner.Prepared) (exec.Operator, error) {
	if !p.IsWrite {
		return nil, dberr.New(dberr.InvalidInput, "not an INSERT, UPDATE or DELETE statement: run queries as queries (CommandStatementQuery)")
	}
	if p.Write == nil {
		return nil, dberr.New(dberr.InvalidInput, "the statement has %d parameter(s): bind values before executing it", p.Params.NumFields())
	}
	op, err := build.Build(p.Write, s.env)
	if err != nil {
		return nil, err
	}
	if err := op.Open(ctx); err != nil {
		op.Close()
		return nil, err
	}
	return op, nil
}

// writeAsQuery runs a write sent as a query and returns the prepared one-row result, whose
// ticket replays the count without writing again.
func (s *Server) writeAsQuery(ctx context.Context, p *planner.Prepared) (*planner.Prepared, int64, error) {
	n, err := s.executeUpdate(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	out, err := planner.CountResult(n)
	return out, n, err
}

// flightInfoWrite is the FlightInfo of a write sent as a query: the write is done, the
// ticket streams its count, and TotalRecords is the number of rows affected (which ADBC
// reports as the cursor's rowcount).
func (s *Server) flightInfoWrite(ctx context.Context, p *planner.Prepared, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	res, n, err := s.writeAsQuery(ctx, p)
	if err != nil {
		return nil, err
	}
	info, err := s.flightInfo(ctx, res, desc)
	if err != nil {
		return nil, err
	}
	info.TotalRecords = n
	return info, nil
}

// doGetWrite runs a write sent as a prepared query's DoGet and streams its count.
func (s *Server) doGetWrite(ctx context.Context, p *planner.Prepared) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	res, _, err := s.writeAsQuery(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	op, err := s.run(ctx, ticketPayload{Plan: res.Substrait})
	if err != nil {
		return nil, nil, err
	}
	return op.Schema(), s.stream(ctx, op), nil
}
