#!/bin/sh
# Installs the S3-compatible test server (versitygw, posix backend) with go install, pinned.
# The multi-process commit tests (integration/commits) and internal/blobstore's S3 tests start
# it on 127.0.0.1 only. Usage: scripts/install-s3server.sh [GOBIN]; prints the binary's path.
# A cold install (download + build) takes about 2 minutes; an installed binary is kept.
set -eu
VERSION=v1.8.0
GOBIN_DIR=${1:-$(go env GOPATH)/bin}
BIN="$GOBIN_DIR/versitygw"
STAMP="$GOBIN_DIR/.versitygw-$VERSION"
if [ -x "$BIN" ] && [ -f "$STAMP" ]; then
	echo "$BIN"
	exit 0
fi
mkdir -p "$GOBIN_DIR"
GOBIN="$GOBIN_DIR" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2
touch "$STAMP"
echo "$BIN"
