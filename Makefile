# flightd: the only entry point humans and CI use. `make run` and `make test` work on a fresh
# machine: they install what they need (a Python venv with pinned peers) by themselves.

GO        ?= go
PYTHON    ?= python3
VENV      := .venv
VPY       := $(VENV)/bin/python
BIN       := bin/flightd
ROOT      ?= ./data
ADDR      ?= 127.0.0.1:31337
GOLANGCI  := github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
VERSITYGW := $(CURDIR)/bin/tools/versitygw

.PHONY: all build s3server run test test-go test-python test-jdbc slt slt-rewrite slt-configs venv bench bench-smoke lint generate check-generated fuzz-smoke clean

all: build

## build: compile bin/flightd
build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/flightd

## venv: the Python virtualenv with the pinned peers (pylance, pyarrow, duckdb, ADBC, pytest)
venv: $(VENV)/.stamp
$(VENV)/.stamp: integration/python/requirements.txt
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r integration/python/requirements.txt
	touch $@

## run: serve ./data (a demo table is written there when it is empty) on 127.0.0.1:31337
run: build venv
	@mkdir -p $(ROOT)
	@if [ -z "$$(ls -A $(ROOT))" ]; then $(VPY) scripts/demo_data.py $(ROOT); fi
	$(BIN) serve --root $(ROOT) --addr $(ADDR)

## s3server: versitygw, the S3-compatible server the storage and commit tests start on loopback
s3server: $(VERSITYGW)
$(VERSITYGW): scripts/install-s3server.sh
	sh scripts/install-s3server.sh $(CURDIR)/bin/tools

## test: unit tests, the import-rule test, and the integration suites with real clients and peers
test: venv build s3server test-go slt-configs test-python

test-go:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" FLIGHTD_PYTHON="$(CURDIR)/$(VPY)" VERSITYGW="$(VERSITYGW)" FLIGHTD_POISON_FREED=1 GO="$(GO)" sh scripts/gotest.sh

test-python:
	PYTHONDONTWRITEBYTECODE=1 FLIGHTD_POISON_FREED=1 FLIGHTD_BIN="$(CURDIR)/$(BIN)" $(VPY) -m pytest -q integration/python

## slt: the sqllogictest corpus (in-process, over Flight SQL, over Lance); slt-rewrite regenerates
## expected results from DuckDB; slt-configs re-runs it with batch size 1 and 3, one and four
## workers, and the optimizer off
slt: venv
	$(GO) test -count=1 ./integration/sqllogic -run 'TestSLT'
slt-rewrite: venv
	$(GO) test -count=1 ./integration/sqllogic -run 'TestSLT$$' -rewrite
slt-configs: venv
	$(GO) test -count=1 ./integration/sqllogic -run TestSLTConfigs -slt.configs

## test-jdbc: the JDBC (DBeaver's driver) harness alone; needs JDK 17+ and Maven (the first run downloads the driver)
test-jdbc: venv
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" FLIGHTD_PYTHON="$(CURDIR)/$(VPY)" $(GO) test -race -count=1 -run TestJDBCDriver ./integration/jdbc/

## bench: side-by-side benchmarks (see bench/README.md)
bench: build venv
	cd bench && FLIGHTD_BENCH_SCALE=1 $(GO) test -run '^$$' -bench . -benchtime 3x -timeout 60m .

bench-smoke: venv
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

## lint: gofmt, go vet and a pinned golangci-lint
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(GOLANGCI) run ./...

## generate: regenerate protobuf code (needs protoc; scripts/install-protoc.sh installs it)
generate:
	@command -v protoc >/dev/null || sh scripts/install-protoc.sh
	$(GO) generate ./...

## check-generated: fail when checked-in generated code is stale
check-generated: generate
	@git diff --exit-code -- '*.pb.go' '*_gen.go' || (echo "generated code is stale: run make generate" && exit 1)

## fuzz-smoke: run every fuzz target briefly
fuzz-smoke:
	sh scripts/fuzz-smoke.sh $(FUZZTIME)

clean:
	rm -rf bin integration/jdbc/target
