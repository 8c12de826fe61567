#!/bin/sh
# protoc plugin wrapper: runs the protoc-gen-go pinned in tools/go.mod.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
exec go tool -modfile="$dir/go.mod" protoc-gen-go "$@"
