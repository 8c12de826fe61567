// Package flightsrv is flightd's Arrow Flight SQL service: it turns each Flight SQL RPC a client
// sends into planner and executor calls and streams the results back.
//
//	GetFlightInfo(CommandStatementQuery | prepared statement)
//	  → planner.PlanSQL (parse, bind, pin table versions, produce Substrait)
//	  → FlightInfo{schema, one endpoint whose ticket carries the Substrait plan}
//	DoGet(ticket)
//	  → planner.Logical (Substrait → logical plan) → planner.Optimize → build.Build
//	  → operator batches → Arrow IPC stream (batches sliced under the gRPC message limit)
//
// Tickets are self-contained (see ticket.go): any flightd process over the same storage can
// serve them. Prepared-statement handles are self-contained too: the handle is the statement.
//
// errors.go is the only place that knows gRPC status codes.
package flightsrv
