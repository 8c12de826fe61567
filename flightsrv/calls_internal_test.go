package flightsrv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc/metadata"
)

// syncBuffer is a bytes.Buffer safe for the server's concurrent log writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records decodes the JSON log lines written so far.
func (b *syncBuffer) records(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		out = append(out, rec)
	}
	return out
}

// waitRecords waits until n closing records ("rpc") are written (the call log writes them
// after the responses) and returns every record.
func (b *syncBuffer) waitRecords(t *testing.T, n int) []map[string]any {
	var recs []map[string]any
	require.Eventually(t, func() bool {
		recs = b.records(t)
		ends := 0
		for _, r := range recs {
			if r["msg"] == "rpc" {
				ends++
			}
		}
		return ends >= n
	}, 5*time.Second, time.Millisecond, "%d closing records", n)
	return recs
}

// TestCallLogs checks the per-call records: the planning call and the DoGet of one statement
// share its query id; DoGet reports rows and bytes; failures carry their code at WARN.
func TestCallLogs(t *testing.T) {
	var logs syncBuffer
	ts := startTestServer(t, 50, Config{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	cl := ts.dial(t)
	ctx := context.Background()
	n, err := count(ctx, t, cl, "SELECT x FROM t WHERE x < 20")
	require.NoError(t, err)
	require.Equal(t, int64(20), n)
	_, err = count(ctx, t, cl, "SELECT nope FROM t")
	require.Error(t, err)

	var ends, starts []map[string]any
	for _, r := range logs.waitRecords(t, 3) {
		switch r["msg"] {
		case "rpc":
			ends = append(ends, r)
		case "rpc start":
			starts = append(starts, r)
		}
	}
	require.Len(t, ends, 3, "GetFlightInfo, DoGet, failed GetFlightInfo")
	require.Len(t, starts, 3)
	plan, get, bad := ends[0], ends[1], ends[2]
	require.Equal(t, "/arrow.flight.protocol.FlightService/GetFlightInfo", plan["method"])
	require.Equal(t, "SELECT x FROM t WHERE x < 20", plan["sql"])
	require.Len(t, plan["query_id"], 32)
	require.Equal(t, "/arrow.flight.protocol.FlightService/DoGet", get["method"])
	require.Equal(t, plan["query_id"], get["query_id"], "one query id per statement")
	require.EqualValues(t, 20, get["rows"])
	require.Greater(t, get["bytes_out"], float64(20*8))
	require.Equal(t, "OK", get["code"])
	require.Equal(t, "INFO", get["level"])
	require.Contains(t, get, "duration")
	require.Equal(t, "InvalidArgument", bad["code"])
	require.Equal(t, "WARN", bad["level"])
	require.Contains(t, bad["error"], "nope")
}

// TestCallLogsUser: with authentication, every call's record names the user, and a refused
// call is logged as UNAUTHENTICATED without one.
func TestCallLogsUser(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	require.NoError(t, err)
	auth, err := NewAuthenticator(map[string][]byte{"alice": hash}, nil, time.Hour)
	require.NoError(t, err)
	var logs syncBuffer
	ts := startTestServer(t, 5, Config{Auth: auth, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	cl := ts.dial(t)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pw"))
	n, err := count(metadata.AppendToOutgoingContext(context.Background(), "authorization", basic), t, cl, "SELECT x FROM t")
	require.NoError(t, err)
	require.Equal(t, int64(5), n)
	_, err = count(context.Background(), t, cl, "SELECT x FROM t")
	require.Error(t, err)

	recs := logs.waitRecords(t, 3)
	require.Len(t, recs, 3)
	for _, r := range recs[:2] {
		require.Equal(t, "alice", r["user"], r["method"])
		require.Equal(t, "OK", r["code"])
	}
	require.Empty(t, recs[2]["user"])
	require.Equal(t, "Unauthenticated", recs[2]["code"])
}
