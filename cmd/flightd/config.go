package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Every `flightd serve` flag can also come from an environment variable (FLIGHTD_ and the flag
// name in upper case with - as _, e.g. FLIGHTD_MAX_ENDPOINTS) and from the --config file (the
// flag name as the key). A flag on the command line wins over the environment, which wins over
// the file, which wins over the built-in default.
//
// The file is JSON, or a small TOML subset when its name ends in .toml:
//
//	# flightd.toml
//	root = "/data/lance"
//	addr = "0.0.0.0:31337"
//	max-endpoints = 4
//	allow-no-auth = false
//	locations = ["grpc://a:31337", "grpc://b:31337"]   # lists are joined with commas
//
// Keys are flag names (max_endpoints is accepted for max-endpoints); an unknown key is an error.

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return "FLIGHTD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// applySources fills the flags not given on the command line from the environment and then
// from the config file (path may be empty).
func applySources(fs *flag.FlagSet, path string) error {
	file := map[string]string{}
	if path != "" {
		var err error
		if file, err = readConfigFile(path); err != nil {
			return err
		}
		for key := range file {
			if fs.Lookup(key) == nil || key == "config" {
				return fmt.Errorf("config %s: unknown setting %q", path, key)
			}
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok && v != "" {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("$%s: %w", envName(f.Name), err))
			}
			return
		}
		if v, ok := file[f.Name]; ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("config %s: %s: %w", path, f.Name, err))
			}
		}
	})
	return errors.Join(errs...)
}

// readConfigFile reads a config file into flag name → value text.
func readConfigFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var raw map[string]any
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		raw, err = parseTOML(b)
	} else {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		err = dec.Decode(&raw)
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		text, err := settingText(v)
		if err != nil {
			return nil, fmt.Errorf("config %s: %s: %w", path, k, err)
		}
		out[strings.ReplaceAll(k, "_", "-")] = text
	}
	return out, nil
}

// settingText renders a config value the way the flag parses it.
func settingText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return x.String(), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("list items must be strings")
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("unsupported value %v (want a string, number, boolean or list of strings)", v)
}

// parseTOML reads the TOML subset flightd's config uses: key = value lines, with strings
// ("..." with escapes, '...' literal), integers, booleans and one-line lists of strings, and
// # comments. Tables ([section]) are refused.
func parseTOML(b []byte) (map[string]any, error) {
	out := map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(stripComment(sc.Text()))
		if text == "" {
			continue
		}
		key, val, ok := strings.Cut(text, "=")
		if !ok || strings.HasPrefix(text, "[") {
			return nil, fmt.Errorf("line %d: want key = value", line)
		}
		key = strings.Trim(strings.TrimSpace(key), `"`)
		v, err := tomlValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", line, key, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("line %d: %s set twice", line, key)
		}
		out[key] = v
	}
	return out, sc.Err()
}

// stripComment cuts a # comment that is not inside a string.
func stripComment(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0 && r == quote && (quote == '\'' || i == 0 || s[i-1] != '\\'):
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && r == '#':
			return s[:i]
		}
	}
	return s
}

// tomlValue reads one value of the subset.
func tomlValue(v string) (any, error) {
	switch {
	case v == "true" || v == "false":
		return v == "true", nil
	case strings.HasPrefix(v, `"`):
		return strconv.Unquote(v)
	case strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2:
		return v[1 : len(v)-1], nil
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		var items []any
		for item := range strings.SplitSeq(v[1:len(v)-1], ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			s, err := tomlValue(item)
			if err != nil {
				return nil, err
			}
			items = append(items, s)
		}
		return items, nil
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("unsupported value %s (want a quoted string, integer, boolean or list)", v)
	}
	return n, nil
}
