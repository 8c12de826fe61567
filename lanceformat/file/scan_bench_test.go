package file_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
)

// BenchmarkScanFile reads every column of the Lance file named by FLIGHTD_SCAN_FILE in
// 64Ki-row ReadRange batches, the way a table scan does (skipped when it is unset). It is
// for profiling the decode path on real data, e.g. a TPC-H lineitem fragment from bench/:
//
//	FLIGHTD_SCAN_FILE=/tmp/flightd-bench/tpch-sf1-*/lance/lineitem.lance/data/X.lance \
//	  go test -run '^$' -bench ScanFile -cpuprofile cpu.prof ./lanceformat/file/
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("FLIGHTD_SCAN_FILE")
	if path == "" {
		b.Skip("FLIGHTD_SCAN_FILE is not set")
	}
	defer file.SetPoisonPageBuffers(file.SetPoisonPageBuffers(false)) // measure pooling
	ctx := context.Background()
	store := dirStore{filepath.Dir(path)}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	const batch = 64 << 10
	for b.Loop() {
		r, err := file.Open(ctx, store, filepath.Base(path))
		if err != nil {
			b.Fatal(err)
		}
		var ids []int32
		for _, f := range r.Schema().Fields {
			ids = append(ids, f.ID)
		}
		var bytes int64
		for start := uint64(0); start < r.NumRows(); start += batch {
			arrs, err := r.ReadRange(ctx, ids, start, min(start+batch, r.NumRows()), mem)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range arrs {
				for _, buf := range a.Data().Buffers() {
					if buf != nil {
						bytes += int64(buf.Len())
					}
				}
				a.Release()
			}
		}
		b.SetBytes(bytes)
	}
}
