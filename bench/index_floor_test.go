package bench

import (
	"context"
	"net"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
)

// The transport floor of a Flight SQL query (BenchmarkIndexLookup's floor-ms): the same
// Python client calls (GetFlightInfo with the query's command, then DoGet of its one
// ticket) against a minimal Flight server that does no work: it answers every
// GetFlightInfo with one fixed endpoint and every DoGet with fixed batches, the query's own
// result as flightd sent it. flightd's time above it is what flightd itself spends on the query.

// floorServer is that minimal server.
type floorServer struct {
	flight.BaseFlightServer
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	info    []byte // the serialized schema
}

// GetFlightInfo answers any descriptor with one endpoint.
func (f *floorServer) GetFlightInfo(_ context.Context, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return &flight.FlightInfo{FlightDescriptor: d, Schema: f.info, TotalRecords: -1, TotalBytes: -1,
		Endpoint: []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: []byte("floor")}}}}, nil
}

// DoGet streams the fixed batches.
func (f *floorServer) DoGet(_ *flight.Ticket, st flight.FlightService_DoGetServer) error {
	w := flight.NewRecordWriter(st, ipc.WithSchema(f.schema))
	defer w.Close()
	for _, batch := range f.batches {
		if err := w.Write(batch); err != nil {
			return err
		}
	}
	return nil
}

// startFloorServer serves the result of sql on the Flight SQL server at addr from a minimal
// Flight server with gRPC's default options and returns its address.
func startFloorServer(b *testing.B, addr, sql string) string {
	b.Helper()
	sc, batches := queryBatches(b, addr, sql)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	flight.RegisterFlightServiceServer(srv, &floorServer{schema: sc, batches: batches,
		info: flight.SerializeSchema(sc, memory.DefaultAllocator)})
	go func() { _ = srv.Serve(lis) }()
	b.Cleanup(func() {
		srv.Stop()
		for _, batch := range batches {
			batch.Release()
		}
	})
	return lis.Addr().String()
}

// queryBatches runs sql on the Flight SQL server at addr and returns its result's schema
// and batches (the caller releases them).
func queryBatches(b *testing.B, addr, sql string) (*arrow.Schema, []arrow.RecordBatch) {
	b.Helper()
	cl := dialLoad(b, addr)
	defer cl.Close()
	ctx := context.Background()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
	if len(info.Endpoint) != 1 {
		b.Fatalf("%s: %d endpoints, want 1", sql, len(info.Endpoint))
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
	defer rdr.Release()
	var batches []arrow.RecordBatch
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		batches = append(batches, rec)
	}
	if err := rdr.Err(); err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
	return rdr.Schema(), batches
}
