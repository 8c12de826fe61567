#!/usr/bin/env bash
# Run the Python integration suite against a freshly built flightd.
#
#   integration/python/run.sh [pytest args...]
#
# Builds bin/flightd unless FLIGHTD_BIN is already set, then runs pytest from
# the pinned venv (.venv, created by `make venv` from requirements.txt).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-$repo/.venv/bin/python}"

if [[ ! -x "$python" ]]; then
  echo "run.sh: no Python venv at $python (run \`make venv\`)" >&2
  exit 2
fi

if [[ -z "${FLIGHTD_BIN:-}" ]]; then
  (cd "$repo" && go build -o bin/flightd ./cmd/flightd)
  export FLIGHTD_BIN="$repo/bin/flightd"
fi

# Keep __pycache__ out of the source tree.
export PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest "$repo/integration/python" -q "$@"
