"""Every file-format fixture, end to end: pylance writes it, flightd serves it, pyarrow reads it.

Runs lanceformat/testdata/gen_file_fixtures.py once, hard-links every dataset
into one server root as table ``<case>_<vX_Y>``, and checks that
``SELECT * FROM <table>`` over Flight SQL returns exactly ``expected.arrow``
(what pylance reads).  A server error saying "not supported" turns the case
into xfail with the server's message; anything else fails.

Set FLIGHTD_IT_FIXTURES to a regex on case names (as gen_file_fixtures --only)
to run a subset; FLIGHTD_IT_FIXTURES=none skips the module.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import re

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from differential import xfail_if_not_supported
from flightd_proc import start_flightd, stop_flightd
from flightsql_wire import run_statement
from repo_scripts import GEN_FILE_FIXTURES, load_module

GEN = load_module(GEN_FILE_FIXTURES)
ONLY = os.environ.get("FLIGHTD_IT_FIXTURES", "")
ONLY_RE = re.compile(ONLY) if ONLY and ONLY != "none" else None
PLANNED = [] if ONLY == "none" else list(GEN.planned_cases(GEN.VERSIONS, ONLY_RE))


def table_name(version: str, case: str) -> str:
    """The flightd table a fixture is served as."""
    return f"{case}_{GEN.version_tag(version)}"


def hardlink_tree(src: pathlib.Path, dst: pathlib.Path) -> None:
    """Mirror ``src`` into ``dst`` with hard links (no copy, real directories for the server)."""
    for dirpath, _, filenames in os.walk(src):
        target = dst / pathlib.Path(dirpath).relative_to(src)
        target.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            os.link(pathlib.Path(dirpath) / name, target / name)


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """Generated fixtures: (outdir, {index name: case entry}, {index name: skip entry})."""
    out = tmp_path_factory.mktemp("file-fixtures")
    args = [str(out)] + (["--only", ONLY] if ONLY_RE else [])
    assert GEN.main(args) == 0
    index = json.loads((out / "index.json").read_text())
    return out, {c["name"]: c for c in index["cases"]}, {s["name"]: s for s in index["skipped"]}


@pytest.fixture(scope="module")
def fixture_server(fixtures, tmp_path_factory):
    """flightd serving every generated dataset from one root."""
    out, cases, _ = fixtures
    root = tmp_path_factory.mktemp("fixture-root")
    for case in cases.values():
        hardlink_tree(out / case["dataset_dir"], root / f"{table_name(case['version'], case['case'])}.lance")
    server = start_flightd(root, tmp_path_factory.mktemp("fixture-logs"))
    yield server
    stop_flightd(server)


@pytest.fixture(scope="module")
def fixture_client(fixture_server):
    """A Flight client for the fixture server."""
    c = fl.FlightClient(f"grpc://{fixture_server.address}")
    yield c
    c.close()


def _plain(value):
    """Python value with numpy scalars (float16) unwrapped and NaN made comparable."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _rows(table: pa.Table) -> list[str]:
    """Rows as canonical strings, sorted (no ORDER BY: row order is not part of the contract)."""
    cols = [[_plain(v) for v in col.to_pylist()] for col in table.columns]
    return sorted(repr(row) for row in zip(*cols))


def _logical(t: pa.DataType) -> pa.DataType:
    """Types a server may legitimately normalise to (dictionary decoded, large/view offsets)."""
    if pa.types.is_dictionary(t):
        return _logical(t.value_type)
    if t in (pa.large_string(), pa.string_view()):
        return pa.string()
    if t in (pa.large_binary(), pa.binary_view()):
        return pa.binary()
    return t


@pytest.mark.parametrize("plan", PLANNED, ids=lambda p: f"{GEN.version_tag(p.version)}/{p.name}")
def test_fixture_served(fixtures, fixture_server, fixture_client, plan):
    out, cases, skipped = fixtures
    key = f"{GEN.version_tag(plan.version)}/{plan.name}"
    if key in skipped:
        pytest.skip(f"pylance refused this combination: {skipped[key]['reason'][:200]}")
    case = cases[key]
    expected = pa.ipc.open_file(str(out / case["expected"])).read_all()
    sql = f"SELECT * FROM {table_name(plan.version, plan.name)}"
    try:
        info, parts = run_statement(fixture_client, sql, fl.FlightCallOptions(timeout=60))
    except (fl.FlightError, pa.ArrowException) as exc:
        xfail_if_not_supported(exc, key)
        raise
    got = pa.concat_tables(parts) if parts else info.schema.empty_table()
    assert got.column_names == expected.column_names
    for g, w in zip(got.schema, expected.schema):
        assert _logical(g.type) == _logical(w.type), f"column {w.name}: served as {g.type}, pylance reads {w.type}"
    assert got.num_rows == expected.num_rows
    want_rows, got_rows = _rows(expected), _rows(got)
    if got_rows != want_rows:
        diff = [(g, w) for g, w in zip(got_rows, want_rows) if g != w][:3]
        pytest.fail(f"{key}: {sum(g != w for g, w in zip(got_rows, want_rows))} rows differ; first: {diff}")
