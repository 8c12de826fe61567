package exec

import (
	"errors"
	"sync"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/units"
)

// ErrMemoryLimit is the cause of every refused reservation; errors.Is finds it under the
// dberr.OutOfMemory error that TryGrow returns.
var ErrMemoryLimit = errors.New("query memory limit reached")

// MemoryPool accounts the memory of one query's growing state (hash tables, sort buffers,
// set-operation counts) against a byte limit, after DataFusion's model: operators take a
// Reservation from the pool and grow it before they keep more data. It is safe for
// concurrent use. The pool accounts; it does not allocate: Arrow buffers still come from
// Env.Mem.
type MemoryPool struct {
	limit int64 // 0: unlimited

	mu   sync.Mutex
	used int64
	peak int64
}

// NewMemoryPool returns a pool that refuses reservations beyond limit bytes (0 or
// negative: unlimited).
func NewMemoryPool(limit int64) *MemoryPool {
	return &MemoryPool{limit: max(limit, 0)}
}

// Limit returns the pool's byte limit (0: unlimited).
func (p *MemoryPool) Limit() int64 { return p.limit }

// Used returns the bytes currently reserved.
func (p *MemoryPool) Used() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Peak returns the most bytes ever reserved at once.
func (p *MemoryPool) Peak() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// NewReservation returns an empty reservation for the named consumer (an operator name
// such as "hash aggregate"; it appears in the error when the limit is reached).
func (p *MemoryPool) NewReservation(consumer string) *Reservation {
	return &Reservation{pool: p, consumer: consumer}
}

func (p *MemoryPool) tryGrow(n int64) (used int64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.limit > 0 && p.used+n > p.limit {
		return p.used, false
	}
	p.grow(n)
	return p.used, true
}

// grow must be called with mu held.
func (p *MemoryPool) grow(n int64) {
	p.used += n
	p.peak = max(p.peak, p.used)
}

func (p *MemoryPool) shrink(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used -= n
}

// Reservation is one consumer's share of a MemoryPool. It is used by one goroutine at a
// time. A nil *Reservation accounts nothing and never refuses, so operators built without
// a pool need no special case. Operators Free their reservation in Close.
type Reservation struct {
	pool     *MemoryPool
	consumer string
	size     int64
}

// Size returns the bytes this reservation holds.
func (r *Reservation) Size() int64 {
	if r == nil {
		return 0
	}
	return r.size
}

// TryGrow adds n bytes to the reservation, or returns a dberr.OutOfMemory error (wrapping
// ErrMemoryLimit) naming the consumer and the limit when the pool cannot grant them; the
// reservation is then unchanged.
func (r *Reservation) TryGrow(n int64) error {
	if r == nil || n <= 0 {
		return nil
	}
	used, ok := r.pool.tryGrow(n)
	if !ok {
		return dberr.Wrap(dberr.OutOfMemory, ErrMemoryLimit,
			"%s could not reserve %s more: the query's memory limit is %s (%s reserved, %s by this operator)",
			r.consumer, units.FormatBytes(n), units.FormatBytes(r.pool.limit), units.FormatBytes(used), units.FormatBytes(r.size))
	}
	r.size += n
	return nil
}

// Grow adds n bytes to the reservation even beyond the limit (for memory already in use
// that must be accounted anyway).
func (r *Reservation) Grow(n int64) {
	if r == nil || n <= 0 {
		return
	}
	r.pool.mu.Lock()
	r.pool.grow(n)
	r.pool.mu.Unlock()
	r.size += n
}

// Shrink returns n bytes (at most the reservation's size) to the pool.
func (r *Reservation) Shrink(n int64) {
	if r == nil || n <= 0 {
		return
	}
	n = min(n, r.size)
	r.pool.shrink(n)
	r.size -= n
}

// Free returns every byte of the reservation to the pool and reports how many there were.
// It is safe to call more than once.
func (r *Reservation) Free() int64 {
	if r == nil {
		return 0
	}
	n := r.size
	r.Shrink(n)
	return n
}
