package sqllogic

import "testing"

// TestSLTFlight runs the corpus over the wire: an in-process flightd on 127.0.0.1:0 and
// arrow-go's Flight SQL client, with the server's and the client's allocations checked.
func TestSLTFlight(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite regenerates the files instead")
	}
	runSuite(t, runConfig{name: "flight", flight: true})
}
