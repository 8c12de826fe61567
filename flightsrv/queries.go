package flightsrv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Every statement gets a query id when it is planned (GetFlightInfo). The id travels in each
// of its tickets, so the logs of the planning call and of every DoGet that serves it share it,
// and CancelFlightInfo can find the statement's running streams. Tickets are stateless and any
// replica may serve them, so cancellation reaches the streams running on the replica that
// receives the CancelFlightInfo call (and refuses later DoGets of the statement there).

// queryID identifies one planned statement.
type queryID [16]byte

// newQueryID returns a random query id.
func newQueryID() queryID {
	var id queryID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (it crashes the program instead)
	return id
}

func (id queryID) isZero() bool { return id == queryID{} }

// String renders the id as logs show it (32 hex digits); "" for the zero id.
func (id queryID) String() string {
	if id.isZero() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

// ErrShuttingDown is the cause of a stream cancelled because the server is shutting down;
// clients see UNAVAILABLE and may retry on another replica.
var ErrShuttingDown = errors.New("server shutting down")

// errQueryCancelled is the cause of a stream cancelled by CancelFlightInfo; clients see
// CANCELLED.
var errQueryCancelled = fmt.Errorf("query cancelled by CancelFlightInfo: %w", context.Canceled)

const (
	// maxCancelled bounds how many cancelled query ids a server remembers.
	maxCancelled = 4096
)

// queryRegistry tracks the streams running on this server, by query id.
type queryRegistry struct {
	mu   sync.Mutex
	live map[*liveStream]struct{}
	// cancelled remembers cancelled queries (with the time until which their tickets are
	// valid), so that a DoGet arriving after CancelFlightInfo is refused.
	cancelled *lru.Cache[queryID, time.Time]
}

// liveStream is one running DoGet.
type liveStream struct {
	id     queryID
	cancel context.CancelCauseFunc
}

func newQueryRegistry() *queryRegistry {
	cancelled, _ := lru.New[queryID, time.Time](maxCancelled) // fails only for a size ≤ 0
	return &queryRegistry{live: map[*liveStream]struct{}{}, cancelled: cancelled}
}

// isCancelled reports whether id was cancelled and its tickets may still be redeemed.
func (r *queryRegistry) isCancelled(id queryID) bool {
	until, ok := r.cancelled.Get(id)
	return ok && time.Now().Before(until)
}

// start registers a stream of query id and returns its context, which is cancelled by
// CancelFlightInfo or a drain, and the function to call when the stream ends. A query that
// was cancelled already is refused.
func (r *queryRegistry) start(ctx context.Context, id queryID) (context.Context, func(), error) {
	if !id.isZero() && r.isCancelled(id) {
		return nil, nil, errQueryCancelled
	}
	ctx, cancel := context.WithCancelCause(ctx)
	ls := &liveStream{id: id, cancel: cancel}
	r.mu.Lock()
	r.live[ls] = struct{}{}
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.live, ls)
		r.mu.Unlock()
		cancel(nil)
	}, nil
}

// cancelQuery cancels the running streams of id and refuses its later streams. It returns
// the number of streams it cancelled.
func (r *queryRegistry) cancelQuery(id queryID) int {
	r.cancelled.Add(id, time.Now().Add(ticketTTL))
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for ls := range r.live {
		if ls.id == id {
			ls.cancel(errQueryCancelled)
			n++
		}
	}
	return n
}

// cancelAll cancels every running stream with cause and returns how many there were.
func (r *queryRegistry) cancelAll(cause error) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ls := range r.live {
		ls.cancel(cause)
	}
	return len(r.live)
}

// running returns the number of running streams.
func (r *queryRegistry) running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}
