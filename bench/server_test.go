package bench

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// startFlightd serves the Lance tables under root in-process on 127.0.0.1:0, with as many
// workers as GOMAXPROCS and up to endpoints endpoints per query, and returns its address.
// The server's allocator is checked for leaks when the benchmark ends.
func startFlightd(b *testing.B, root string, endpoints int) string {
	b.Helper()
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	if err != nil {
		b.Fatal(err)
	}
	mem := newSizeAllocator()
	srv, err := flightsrv.New(flightsrv.Config{
		Catalog:      lancecat.New(store),
		Mem:          mem,
		Exec:         exec.Env{Parallelism: runtime.GOMAXPROCS(0)},
		MaxEndpoints: endpoints,
	})
	if err != nil {
		b.Fatal(err)
	}
	fs, addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fs.Shutdown()
		mem.AssertSize(b, 0)
	})
	return addr.String()
}

// tpchSF is the TPC-H scale factor: 1 at FLIGHTD_BENCH_SCALE=1 (SF1: 6M lineitem rows).
func tpchSF(b *testing.B) string {
	return strconv.FormatFloat(max(0.001, scale(b)), 'f', -1, 64)
}

// tpchData generates (once) TPC-H data with tpch/gen.py and returns its directory: lance/,
// parquet/ and tpch.duckdb.
func tpchData(b *testing.B) string {
	sf := tpchSF(b)
	return cachedData(b, "tpch-sf"+sf, "tpch/gen.py", func(dir string) error {
		return runScript(b, "tpch/gen.py", sf, dir)
	})
}
