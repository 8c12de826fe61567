package goclients

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the tests, removes the shared tables and fails the run when a goroutine is
// left behind (the servers run in process, so this covers flightd's goroutines too).
//
// One client-side leak is ignored: when basic authentication fails, the ADBC Go driver
// (v1.12.0, flightsql_database.go) returns without closing the gRPC client it dialed, whose
// callback serializers stay parked (TestADBCAuth's wrong-password cases). Those goroutines
// belong to gRPC client connections only; the server side has none of them.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.root != "" {
		_ = os.RemoveAll(shared.root)
	}
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
