#!/bin/sh
# Installs protoc (only needed to regenerate lanceformat/internal/lancepb). Idempotent.
set -e
if command -v protoc >/dev/null 2>&1; then
	exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update
$SUDO apt-get install -y protobuf-compiler
