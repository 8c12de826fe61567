#!/bin/sh
# Runs every Fuzz* target of the module for a short time (default 5s each).
set -eu
t=${1:-5s}
go list -f '{{.Dir}} {{.ImportPath}}' ./... | while read -r dir pkg; do
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "fuzz $pkg $f ($t)"
    go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg"
  done
done
