package file_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
)

// scanFile returns the store and name of the file FLIGHTD_SCAN_FILE names (skipping the
// benchmark when it is unset) and turns page-buffer poisoning off until the benchmark
// ends, so pooling is measured.
func scanFile(b *testing.B) (dirStore, string) {
	path := os.Getenv("FLIGHTD_SCAN_FILE")
	if path == "" {
		b.Skip("FLIGHTD_SCAN_FILE is not set")
	}
	prev := file.SetPoisonPageBuffers(false)
	b.Cleanup(func() { file.SetPoisonPageBuffers(prev) })
	return dirStore{filepath.Dir(path)}, filepath.Base(path)
}

// BenchmarkScanFile reads every column of the Lance file named by FLIGHTD_SCAN_FILE in
// 64Ki-row ReadRange batches, the way a table scan does (skipped when it is unset). It is
// for profiling the decode path on real data, e.g. a TPC-H lineitem fragment from bench/:
//
//	FLIGHTD_SCAN_FILE=/tmp/flightd-bench/tpch-sf1-*/lance/lineitem.lance/data/X.lance \
//	  go test -run '^$' -bench ScanFile -cpuprofile cpu.prof ./lanceformat/file/
func BenchmarkScanFile(b *testing.B) {
	store, name := scanFile(b)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	const batch = 64 << 10
	for b.Loop() {
		r, err := file.Open(ctx, store, name)
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

// BenchmarkScanFileColumns reads each column of FLIGHTD_SCAN_FILE alone through a Cursor in
// 16Ki-row ranges, as a table scan does (lancecat), one sub-benchmark per column, so the
// decode cost of each column's encoding shows separately.
func BenchmarkScanFileColumns(b *testing.B) {
	store, name := scanFile(b)
	ctx := context.Background()
	r, err := file.Open(ctx, store, name)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 16 << 10
	for _, f := range r.Schema().Fields {
		b.Run(f.Name, func(b *testing.B) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(b, 0)
			for b.Loop() {
				c := r.NewCursor()
				var bytes int64
				for start := uint64(0); start < r.NumRows(); start += batch {
					arrs, err := c.ReadRange(ctx, []int32{f.ID}, start, min(start+batch, r.NumRows()), mem)
					if err != nil {
						b.Fatal(err)
					}
					for _, buf := range arrs[0].Data().Buffers() {
						if buf != nil {
							bytes += int64(buf.Len())
						}
					}
					arrs[0].Release()
				}
				b.SetBytes(bytes)
			}
		})
	}
}
