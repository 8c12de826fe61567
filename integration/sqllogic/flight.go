package sqllogic

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/slt"
)

// OverFlight runs statements with arrow-go's Flight SQL client: Execute, then DoGet on
// every endpoint in order. Client-side buffers come from mem.
func OverFlight(cl *flightsql.Client, mem memory.Allocator) QueryFunc {
	return func(ctx context.Context, sql string) (string, [][]string, error) {
		info, err := cl.Execute(ctx, sql)
		if err != nil {
			return "", nil, err
		}
		sc, err := flight.DeserializeSchema(info.Schema, mem)
		if err != nil {
			return "", nil, fmt.Errorf("flight info schema: %w", err)
		}
		var rows [][]string
		for _, ep := range info.Endpoint {
			epSchema, epRows, err := doGet(ctx, cl, ep.Ticket)
			if err != nil {
				return "", nil, err
			}
			if !epSchema.Equal(sc) {
				return "", nil, fmt.Errorf("stream schema %s differs from flight info schema %s", epSchema, sc)
			}
			rows = append(rows, epRows...)
		}
		return slt.Types(sc), rows, nil
	}
}

// doGet reads one endpoint's stream and renders its rows.
func doGet(ctx context.Context, cl *flightsql.Client, ticket *flight.Ticket) (*arrow.Schema, [][]string, error) {
	rdr, err := cl.DoGet(ctx, ticket)
	if err != nil {
		return nil, nil, err
	}
	defer rdr.Release()
	var rows [][]string
	for rdr.Next() {
		rows = append(rows, slt.RenderBatches([]arrow.RecordBatch{rdr.RecordBatch()})...)
	}
	if err := rdr.Err(); err != nil {
		return nil, nil, err
	}
	return rdr.Schema(), rows, nil
}
