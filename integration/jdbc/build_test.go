package jdbc

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// harness is the built JdbcSmoke program and the driver jars it runs against.
type harness struct {
	java     string
	smokeJar string            // target/jdbc-smoke.jar
	drivers  map[string]string // driver version → jar
}

// buildHarness builds the Maven project: offline first (fast once ~/.m2 is warm), then online
// (the first run downloads the driver and the Maven plugins from Maven Central).
func buildHarness(t *testing.T) *harness {
	t.Helper()
	java, err := exec.LookPath("java")
	require.NoError(t, err, "the JDBC harness needs a JDK 17+ `java` on PATH (or run go test -short to skip it)")
	mvn, err := exec.LookPath("mvn")
	require.NoError(t, err, "the JDBC harness needs Maven 3 (`mvn`) on PATH (or run go test -short to skip it)")

	versions := pinnedVersions(t)
	if upToDate(t, versions) {
		t.Log("target/jdbc-smoke.jar is newer than pom.xml and the sources: not rebuilding")
	} else if out, err := runMaven(t, mvn, 2*time.Minute, "-o"); err != nil {
		t.Logf("offline Maven build failed, retrying online (needs Maven Central): %s", tail(out))
		out, err = runMaven(t, mvn, 8*time.Minute)
		require.NoError(t, err, "building the JDBC harness with Maven failed; is Maven Central "+
			"(https://repo.maven.apache.org/maven2) reachable? Maven said:\n%s", tail(out))
	}
	smoke, err := filepath.Abs(filepath.Join("target", "jdbc-smoke.jar"))
	require.NoError(t, err)
	h := &harness{java: java, smokeJar: smoke, drivers: map[string]string{}}
	for _, v := range versions {
		jar, err := filepath.Abs(filepath.Join("target", "drivers", "flight-sql-jdbc-driver-"+v+".jar"))
		require.NoError(t, err)
		_, err = os.Stat(jar)
		require.NoError(t, err, "Maven did not copy driver %s into target/drivers", v)
		h.drivers[v] = jar
	}
	return h
}

// versionProperty matches the pom.xml properties that pin driver versions.
var versionProperty = regexp.MustCompile(`<jdbc\.version\.[a-z]+>([^<]+)</jdbc\.version\.[a-z]+>`)

// pinnedVersions returns the driver versions pom.xml pins (jdbc.version.*), without repeats;
// stale jars of earlier pins in target/drivers are ignored.
func pinnedVersions(t *testing.T) []string {
	t.Helper()
	pom, err := os.ReadFile("pom.xml")
	require.NoError(t, err)
	seen := map[string]bool{}
	var vs []string
	for _, m := range versionProperty.FindAllSubmatch(pom, -1) {
		if v := strings.TrimSpace(string(m[1])); !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	require.NotEmpty(t, vs, "pom.xml pins no jdbc.version.* property")
	return vs
}

// versions returns the driver versions in order.
func (h *harness) versions() []string {
	var vs []string
	for v := range h.drivers {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	return vs
}

// upToDate reports whether target/jdbc-smoke.jar and the pinned driver jars exist and the jar
// is newer than pom.xml and every source file, so Maven (slow to start) can be skipped.
func upToDate(t *testing.T, versions []string) bool {
	t.Helper()
	jar, err := os.Stat(filepath.Join("target", "jdbc-smoke.jar"))
	if err != nil {
		return false
	}
	for _, v := range versions {
		if _, err := os.Stat(filepath.Join("target", "drivers", "flight-sql-jdbc-driver-"+v+".jar")); err != nil {
			return false
		}
	}
	newer := false
	check := func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && !d.IsDir() && info.ModTime().After(jar.ModTime()) {
			newer = true
		}
		return nil
	}
	require.NoError(t, filepath.WalkDir("pom.xml", check))
	require.NoError(t, filepath.WalkDir("src", check))
	return !newer
}

func runMaven(t *testing.T, mvn string, timeout time.Duration, extra ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string{"-B", "-q"}, extra...)
	cmd := exec.CommandContext(ctx, mvn, append(args, "package")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// tail returns the last lines of a command's output, enough to show Maven's error.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
