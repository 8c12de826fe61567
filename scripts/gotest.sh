#!/bin/sh
# gotest.sh: `go test -race -count=1 ./...` with the whole output kept in a log, and, when it
# fails, the failing tests and every data race report printed again at the very end, so that
# the tail of the output (which is all CI shows) names what failed and where.
set -u
log=$(mktemp "${TMPDIR:-/tmp}/flightd-gotest.XXXXXX")
"${GO:-go}" test -race -count=1 ./... >"$log" 2>&1
status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
	echo
	echo "==== go test failed (exit $status); failures and race reports, repeated ===="
	grep -E '^(--- FAIL|FAIL|panic:)' "$log"
	awk '/^WARNING: DATA RACE/{on=1; n++} on && n<=3 {print} /^==================$/{if (on) on=0}' "$log" |
		grep -v 'INFO rpc'
fi
rm -f "$log"
exit "$status"
