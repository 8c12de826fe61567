package compress

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no decoder (in particular the shared zstd decoder)
// leaves goroutines behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
