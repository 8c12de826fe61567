package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// TestServeSettingsPrecedence: flag > environment > config file > default, for JSON and TOML.
func TestServeSettingsPrecedence(t *testing.T) {
	files := map[string]string{
		"flightd.json": `{"addr": "127.0.0.1:1", "max-endpoints": 4, "max_recv_size": "8MiB", "locations": ["grpc://a:1", "grpc://b:2"],
			"allow-no-auth": true, "shutdown-timeout": "5s", "log-format": "json", "root": "/from/file"}`,
		"flightd.toml": `# flightd settings
addr = "127.0.0.1:1"   # overridden by the flag
max-endpoints = 4
max_recv_size = '8MiB'
locations = ["grpc://a:1", "grpc://b:2"]
allow-no-auth = true
shutdown-timeout = "5s"
log-format = "json"
root = "/from/file"
`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			t.Setenv("FLIGHTD_ROOT", "")
			t.Setenv("FLIGHTD_MAX_ENDPOINTS", "7")
			t.Setenv("FLIGHTD_LOG_FORMAT", "")
			path := writeFile(t, name, content)
			f, err := parseServeFlags([]string{"--config", path, "--addr", "127.0.0.1:2"}, io.Discard)
			require.NoError(t, err)
			require.Equal(t, "127.0.0.1:2", f.addr, "flag beats file")
			require.Equal(t, 7, f.maxEndpoints, "environment beats file")
			require.Equal(t, "8MiB", f.maxRecvSize, "file beats default")
			require.Equal(t, "grpc://a:1,grpc://b:2", f.locations)
			require.True(t, f.allowNoAuth)
			require.Equal(t, 5*time.Second, f.shutdownTimeout)
			require.Equal(t, "json", f.logFormat, "an empty environment variable does not count")
			require.Equal(t, "/from/file", f.root)
			require.Equal(t, "info", f.logLevel, "default")
		})
	}
	t.Run("config from the environment", func(t *testing.T) {
		t.Setenv("FLIGHTD_CONFIG", writeFile(t, "c.json", `{"log-level": "debug"}`))
		f, err := parseServeFlags(nil, io.Discard)
		require.NoError(t, err)
		require.Equal(t, "debug", f.logLevel)
		require.Equal(t, "127.0.0.1:31337", f.addr)
	})
}

func TestServeSettingsErrors(t *testing.T) {
	cases := []struct {
		name, file, content, env, want string
	}{
		{"unknown key", "c.json", `{"adr": "x"}`, "", `unknown setting "adr"`},
		{"config in config", "c.json", `{"config": "other.json"}`, "", `unknown setting "config"`},
		{"bad JSON", "c.json", `{"addr": `, "", "unexpected EOF"},
		{"bad type", "c.json", `{"max-endpoints": "many"}`, "", "max-endpoints"},
		{"object value", "c.json", `{"addr": {"host": "x"}}`, "", "unsupported value"},
		{"TOML table", "c.toml", "[server]\naddr = \"x\"\n", "", "line 1"},
		{"TOML bare word", "c.toml", "addr = localhost\n", "", "line 1: addr"},
		{"TOML twice", "c.toml", "addr = \"a\"\naddr = \"b\"\n", "", "set twice"},
		{"bad environment value", "c.json", `{}`, "lots", "FLIGHTD_MAX_ENDPOINTS"},
		{"missing file", "", "", "", "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FLIGHTD_MAX_ENDPOINTS", tc.env)
			path := filepath.Join(t.TempDir(), "missing.json")
			if tc.file != "" {
				path = writeFile(t, tc.file, tc.content)
			}
			_, err := parseServeFlags([]string{"--config", path}, io.Discard)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestStripComment(t *testing.T) {
	for in, want := range map[string]string{
		`a = "x#y" # c`:    `a = "x#y" `,
		`a = 'x#y'#c`:      `a = 'x#y'`,
		`a = "q\"#" # c`:   `a = "q\"#" `,
		`# only a comment`: ``,
		`a = 1`:            `a = 1`,
	} {
		require.Equal(t, want, stripComment(in), in)
	}
}
