"""Session fixtures for flightd's Python integration suite.

The suite writes small Lance datasets with the pinned pylance, starts the real
``flightd serve`` binary over them, and lets the tests talk to it with real
clients (raw pyarrow.flight and ADBC).  Results are checked against DuckDB run
over the rows pylance itself reads.

Environment:
  FLIGHTD_BIN            path of the server binary (default <repo>/bin/flightd,
                         built by ``make build``)
  FLIGHTD_START_TIMEOUT  seconds to wait for "listening on" (default 30)
  FLIGHTD_IT_TABLES      comma-separated subset of the test tables: t (data
                         storage 2.0, always kept), t21 (2.1), t22 (pylance's
                         default, 2.2); default all
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import random
import time

import duckdb
import lance
import pyarrow as pa
import pytest

from flightd_proc import ServerProcess, start_flightd, stop_flightd


@dataclasses.dataclass(frozen=True)
class TableSpec:
    """One Lance table served by flightd, as the tests see it."""

    name: str
    version: str          # data storage version the dataset reports ("2.0", "2.1", "2.2")
    path: pathlib.Path
    rows: pa.Table         # what pylance's to_table() returns for it


# name -> data_storage_version argument for lance.write_dataset (None = pylance default, 2.2).
ALL_TABLE_VERSIONS = {"t": "2.0", "t21": "2.1", "t22": None}


def _selected_tables() -> dict[str, str | None]:
    """FLIGHTD_IT_TABLES=t,t21 limits the tables written and tested (default: all; t is always kept)."""
    names = [n.strip() for n in os.environ.get("FLIGHTD_IT_TABLES", "").split(",") if n.strip()]
    unknown = sorted(set(names) - set(ALL_TABLE_VERSIONS))
    if unknown:
        raise pytest.UsageError(f"FLIGHTD_IT_TABLES: unknown tables {unknown}; known {sorted(ALL_TABLE_VERSIONS)}")
    keep = set(names or ALL_TABLE_VERSIONS) | {"t"}
    return {n: v for n, v in ALL_TABLE_VERSIONS.items() if n in keep}


TABLE_VERSIONS = _selected_tables()
ROWS_PER_FILE = 400  # 1000 rows -> 3 fragments, to exercise multi-fragment scans


def make_rows(n: int = 1000, seed: int = 20261129) -> pa.Table:
    """Deterministic test rows: a = 0..n-1 shuffled with NULLs, b/c with NULLs, g = i % 5."""
    rng = random.Random(seed)
    perm = list(range(n))
    rng.shuffle(perm)
    a = [None if i % 37 == 5 else v for i, v in enumerate(perm)]
    b = [None if i % 23 == 7 else f"name_{rng.randrange(13):02d}" for i in range(n)]
    c = [None if i % 31 == 3 else round(rng.uniform(-1000.0, 1000.0), 3) for i in range(n)]
    g = [i % 5 for i in range(n)]
    return pa.table({
        "a": pa.array(a, pa.int64()),
        "b": pa.array(b, pa.string()),
        "c": pa.array(c, pa.float64()),
        "g": pa.array(g, pa.int64()),
    })


@pytest.fixture(scope="session")
def lance_root(tmp_path_factory) -> pathlib.Path:
    """A fresh server root holding one <name>.lance directory per TABLE_VERSIONS entry."""
    return tmp_path_factory.mktemp("flightd-root")


@pytest.fixture(scope="session")
def lance_tables(lance_root) -> dict[str, TableSpec]:
    """Write the test tables with pylance and read them back as the reference rows."""
    rows = make_rows()
    specs = {}
    for name, version in TABLE_VERSIONS.items():
        path = lance_root / f"{name}.lance"
        kwargs = {"data_storage_version": version} if version else {}
        lance.write_dataset(rows, str(path), max_rows_per_file=ROWS_PER_FILE, **kwargs)
        ds = lance.dataset(str(path))
        assert len(ds.get_fragments()) == -(-rows.num_rows // ROWS_PER_FILE), "expected several fragments"
        specs[name] = TableSpec(name=name, version=ds.data_storage_version,
                                path=path, rows=ds.to_table())
    return specs


@pytest.fixture(scope="session")
def duck(lance_tables):
    """A DuckDB connection with every test table registered under its flightd name."""
    con = duckdb.connect()
    for spec in lance_tables.values():
        con.register(spec.name, spec.rows)
    yield con
    con.close()


@pytest.fixture(scope="session")
def flightd(lance_root, lance_tables, tmp_path_factory) -> ServerProcess:
    """Start ``flightd serve`` over ``lance_root``; stop it with SIGTERM and require exit code 0."""
    server = start_flightd(lance_root, tmp_path_factory.mktemp("flightd-logs"))
    yield server
    stop_flightd(server)


@pytest.fixture(scope="session")
def flight_uri(flightd) -> str:
    """``grpc://host:port`` of the running server."""
    return f"grpc://{flightd.address}"


@pytest.fixture(params=list(TABLE_VERSIONS), ids=lambda n: f"{n}-v{TABLE_VERSIONS[n] or 'default'}")
def table(request, lance_tables) -> TableSpec:
    """Each test table in turn (2.0, 2.1, pylance default = 2.2)."""
    return lance_tables[request.param]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the stdout/stderr tail of the test's flightd server(s) to a failing report."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    funcargs = getattr(item, "funcargs", {}) or {}
    servers = [v for v in funcargs.values() if isinstance(v, ServerProcess)]
    if servers:
        time.sleep(0.05)  # let the server finish writing the log line for this failure
    for server in servers:
        report.sections.append((f"flightd output ({server.cmd[3]})", server.diagnostics()))
