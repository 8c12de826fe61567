package exec_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
)

func TestMemoryPool(t *testing.T) {
	p := exec.NewMemoryPool(1000)
	a, b := p.NewReservation("hash aggregate"), p.NewReservation("sort")
	require.NoError(t, a.TryGrow(600))
	require.NoError(t, b.TryGrow(400))
	require.Equal(t, int64(1000), p.Used())

	err := b.TryGrow(1)
	require.Error(t, err)
	kind, ok := dberr.KindOf(err)
	require.True(t, ok)
	require.Equal(t, dberr.OutOfMemory, kind)
	require.ErrorIs(t, err, exec.ErrMemoryLimit)
	require.Equal(t, "Out of Memory Error: sort could not reserve 1 B more: the query's memory limit is 1000 B "+
		"(1000 B reserved, 400 B by this operator): query memory limit reached", err.Error())
	require.Equal(t, int64(400), b.Size(), "a refused grow leaves the reservation unchanged")

	a.Shrink(100)
	require.NoError(t, b.TryGrow(100))
	require.Equal(t, int64(500), a.Size())
	a.Shrink(10_000) // at most the size
	require.Zero(t, a.Size())
	b.Grow(5000) // already in use: accounted beyond the limit
	require.Equal(t, int64(5500), p.Used())
	require.Equal(t, int64(5500), p.Peak())
	require.Equal(t, int64(5500), b.Free())
	require.Zero(t, b.Free(), "Free twice")
	require.Zero(t, p.Used())
	require.Equal(t, int64(5500), p.Peak())
}

func TestMemoryPoolUnlimitedAndNil(t *testing.T) {
	p := exec.NewMemoryPool(0)
	r := p.NewReservation("x")
	require.NoError(t, r.TryGrow(1<<40))
	require.Equal(t, int64(1)<<40, p.Used())
	r.Free()

	var none *exec.Reservation // operators built without a pool
	require.NoError(t, none.TryGrow(1<<40))
	none.Grow(5)
	none.Shrink(5)
	require.Zero(t, none.Free())
	require.Zero(t, none.Size())

	require.Nil(t, exec.Env{MemoryLimit: 123}.WithDefaults().Pool, "a server-wide Env holds no pool: Build makes one per query")
}

// TestMemoryPoolConcurrent: reservations of several workers never let the pool pass its
// limit and always balance.
func TestMemoryPoolConcurrent(t *testing.T) {
	p := exec.NewMemoryPool(10_000)
	var wg, grown sync.WaitGroup
	var mu sync.Mutex
	release := make(chan struct{})
	refused := 0
	grown.Add(8)
	for range 8 {
		wg.Go(func() {
			r := p.NewReservation("worker")
			defer r.Free()
			// Hold what was reserved until every worker has grown, so the workers compete
			// for the pool however the scheduler runs them.
			defer func() { <-release }()
			defer grown.Done()
			for range 1000 {
				if err := r.TryGrow(7); err != nil {
					mu.Lock()
					refused++
					mu.Unlock()
					r.Shrink(70)
				}
				require.LessOrEqual(t, p.Used(), int64(10_000))
			}
		})
	}
	grown.Wait()
	close(release)
	wg.Wait()
	require.Zero(t, p.Used())
	require.Positive(t, refused, "8×7000 bytes asked of a 10000-byte pool")
	require.LessOrEqual(t, p.Peak(), int64(10_000))
}
