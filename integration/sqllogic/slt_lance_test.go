package sqllogic

import "testing"

// TestSLTLance runs the corpus over real Lance datasets: every table change is written by
// pylance (create, append, overwrite) under a temporary root, which flightd reads through
// catalog/lancecat and internal/blobstore, in-process.
func TestSLTLance(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite regenerates the files instead")
	}
	runSuite(t, runConfig{name: "lance", lance: true})
}
