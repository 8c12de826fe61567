package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayering lists every package of the module and checks its imports against Rules.
func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json", Module+"/...")
	out, err := cmd.Output()
	require.NoError(t, err, "go list failed")
	graph := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		graph[p.ImportPath] = p.Imports
	}
	require.NotEmpty(t, graph)
	require.Empty(t, Violations(graph, Rules), "layering violated")
}

// TestViolationsCatchesUpwardImports is the test of the test: a made-up graph where
// lanceformat imports the planner must be reported, and a clean graph must not.
func TestViolationsCatchesUpwardImports(t *testing.T) {
	p := func(rel string) string { return Module + "/" + rel }
	bad := map[string][]string{
		p("lanceformat/table"): {p("planner/plan"), "fmt"},
		p("exec/ops"):          {p("planner/bind")},
		p("flightsrv"):         {p("catalog/lancecat")},
		p("planner/bind"):      {p("exec")},
		p("mystery"):           nil,
	}
	require.Equal(t, []string{
		"exec/ops imports planner/bind, which its layer may not (allowed: [exec/... exec planner/plan catalog internal/dberr internal/units internal/decfloat internal/recycle])",
		"flightsrv imports catalog/lancecat, which its layer may not (allowed: [flightsrv/... planner planner/... exec exec/... catalog internal/dberr internal/flightdpb])",
		"lanceformat/table imports planner/plan, which its layer may not (allowed: [lanceformat/... internal/dberr])",
		"mystery: no layering rule covers this package; add one to internal/archtest/rules.go",
		"planner/bind imports exec, which its layer may not (allowed: [planner/... catalog internal/dberr internal/flightdpb internal/units internal/decfloat])",
	}, Violations(bad, Rules))

	good := map[string][]string{
		p("lanceformat/table"): {p("lanceformat/lanceio"), p("lanceformat/internal/lancepb")},
		p("catalog/lancecat"):  {p("catalog"), p("lanceformat/table")},
		p("flightsrv"):         {p("planner"), p("exec/build"), p("catalog")},
		p("cmd/flightd"):       {p("catalog/lancecat"), p("internal/blobstore")},
	}
	require.Empty(t, Violations(good, Rules))
}
