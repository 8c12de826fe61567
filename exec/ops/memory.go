package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
)

// Estimates used to account hash-table entries against the query's memory pool: Go's map
// entry overhead (bucket slot, tophash, string header) and the per-group state of one
// aggregate (a few 8- or 16-byte slots).
const (
	mapEntryBytes = 48
	aggStateBytes = 24
)

// newReservation returns a reservation of env's pool for the named operator.
func newReservation(env exec.Env, consumer string) *exec.Reservation {
	if env.Pool == nil {
		return nil
	}
	return env.Pool.NewReservation(consumer)
}

// batchBytes returns the size of the buffers b references (shared buffers counted once per
// reference, which over-counts slices of one buffer: a safe estimate for accounting).
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(ad arrow.ArrayData) int64 {
	d, ok := ad.(*array.Data)
	if !ok || d == nil {
		return 0
	}
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.Dictionary() != nil {
		n += dataBytes(d.Dictionary())
	}
	return n
}
