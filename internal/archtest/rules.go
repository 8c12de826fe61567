package archtest

import (
	"fmt"
	"sort"
	"strings"
)

// Module is the import path of the flightd module.
const Module = "github.com/flightd/flightd"

// Rule says which of the module's own packages the packages matching Pkg may import.
// A pattern is a path relative to the module; a trailing "/..." matches the package and
// everything below it; "..." alone matches every package.
type Rule struct {
	Pkg   string
	Allow []string
}

// Rules is the layering of flightd. The first rule whose Pkg matches a package applies, so
// more specific patterns come first.
var Rules = []Rule{
	{"cmd/...", []string{"..."}},
	{"integration/...", []string{"..."}},
	{"bench/...", []string{"..."}},
	{"internal/archtest", nil},
	{"internal/dberr", nil},
	{"internal/units", nil},
	{"internal/decfloat", nil},
	{"internal/recycle", nil},
	{"internal/memtest", nil},
	{"internal/testutil", nil},
	{"internal/flightdpb", nil},
	{"internal/slt", []string{"internal/dberr"}},
	{"internal/blobstore/...", []string{"internal/blobstore/...", "lanceformat/lanceio", "internal/dberr"}},
	{"lanceformat/lanceio", []string{"internal/dberr"}},
	{"lanceformat/...", []string{"lanceformat/...", "internal/dberr"}},
	{"catalog", []string{"internal/dberr"}},
	{"catalog/lancecat", []string{"catalog", "lanceformat/...", "internal/dberr", "internal/recycle"}},
	{"catalog/memcat", []string{"catalog", "internal/dberr"}},
	{"catalog/catalogtest", []string{"catalog", "internal/dberr"}},
	{"planner/plan", []string{"catalog", "internal/dberr"}},
	{"planner/...", []string{"planner/...", "catalog", "internal/dberr", "internal/flightdpb", "internal/units", "internal/decfloat"}},
	{"exec", []string{"planner/plan", "catalog", "internal/dberr", "internal/units"}},
	{"exec/...", []string{"exec/...", "exec", "planner/plan", "catalog", "internal/dberr", "internal/units", "internal/decfloat", "internal/recycle"}},
	{"flightsrv/...", []string{"flightsrv/...", "planner", "planner/...", "exec", "exec/...", "catalog", "internal/dberr", "internal/flightdpb"}},
}

// match reports whether the module-relative path rel matches pattern.
func match(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// ruleFor returns the first rule covering the package, or nil.
func ruleFor(rel string, rules []Rule) *Rule {
	for i := range rules {
		if match(rules[i].Pkg, rel) {
			return &rules[i]
		}
	}
	return nil
}

// Violations checks a dependency graph (package → its direct imports, full import paths) and
// returns one message per forbidden import or uncovered package, sorted.
func Violations(graph map[string][]string, rules []Rule) []string {
	var out []string
	for pkg, imports := range graph {
		rel, ok := relative(pkg)
		if !ok {
			continue
		}
		rule := ruleFor(rel, rules)
		if rule == nil {
			out = append(out, rel+": no layering rule covers this package; add one to internal/archtest/rules.go")
			continue
		}
		for _, imp := range imports {
			irel, ok := relative(imp)
			if !ok || allowed(irel, rule.Allow) {
				continue
			}
			out = append(out, fmt.Sprintf("%s imports %s, which its layer may not (allowed: %v)", rel, irel, rule.Allow))
		}
	}
	sort.Strings(out)
	return out
}

func allowed(rel string, patterns []string) bool {
	for _, p := range patterns {
		if match(p, rel) {
			return true
		}
	}
	return false
}

// relative strips the module prefix; ok is false for packages outside the module.
func relative(pkg string) (string, bool) {
	if pkg == Module {
		return "", true
	}
	rel, ok := strings.CutPrefix(pkg, Module+"/")
	return rel, ok
}
