"""flightd through raw ``pyarrow.flight`` with hand-packed Flight SQL commands."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.flight as fl
import pytest

from differential import (CASES, NOT_SUPPORTED_RE, UNSUPPORTED, assert_same_result,
                          xfail_newer_version_if_not_supported)
from flightsql_wire import command_statement_query, run_statement

CALL_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def client(flight_uri):
    """A plaintext Flight client connected to the test server."""
    c = fl.FlightClient(flight_uri)
    yield c
    c.close()


@pytest.fixture
def options():
    """Per-call options: a timeout so a hung server fails the test instead of the run."""
    return fl.FlightCallOptions(timeout=CALL_TIMEOUT_S)


def query(client, options, sql: str) -> pa.Table:
    """Run ``sql`` and check the FlightInfo/stream invariants clients rely on."""
    info, parts = run_statement(client, sql, options)
    assert info.schema is not None, f"FlightInfo for {sql!r} has no schema"
    for i, part in enumerate(parts):
        # ADBC rejects "endpoint N returned inconsistent schema"; keep the raw path honest too.
        assert part.schema.equals(info.schema, check_metadata=False), (
            f"endpoint {i} schema differs from FlightInfo.schema\n"
            f"  endpoint: {part.schema}\n  info:     {info.schema}")
    result = pa.concat_tables(parts) if parts else info.schema.empty_table()
    assert info.total_records in (-1, result.num_rows), (
        f"FlightInfo.total_records={info.total_records} but {result.num_rows} rows were streamed")
    return result


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_query_matches_duckdb(client, options, duck, table, case):
    sql = case.render(table.name)
    try:
        got = query(client, options, sql)
    except (fl.FlightError, pa.ArrowException) as exc:
        xfail_newer_version_if_not_supported(table.version, exc)
        raise
    assert_same_result(case, sql, got, duck)


def test_scan_returns_every_row(client, options, lance_tables):
    """The full scan must return exactly the rows pylance reads (multi-fragment table)."""
    spec = lance_tables["t"]
    got = query(client, options, "SELECT a, b, c, g FROM t")
    assert got.num_rows == spec.rows.num_rows == 1000
    key = lambda r: (r["a"] is None, r["a"] or 0, r["b"] or "", r["c"] or 0.0, r["g"])
    assert sorted(got.to_pylist(), key=key) == sorted(spec.rows.to_pylist(), key=key)


def test_unknown_table_is_not_found(client, options):
    with pytest.raises((fl.FlightError, pa.ArrowException)) as excinfo:
        query(client, options, "SELECT a FROM no_such_table")
    exc = excinfo.value
    # Arrow C++ maps gRPC NOT_FOUND to Status::KeyError -> pyarrow.ArrowKeyError.
    assert isinstance(exc, pa.lib.ArrowKeyError), f"want gRPC NotFound (ArrowKeyError), got {type(exc).__name__}: {exc}"
    assert "no_such_table" in str(exc), f"error does not name the table: {exc}"


@pytest.mark.parametrize("sql", UNSUPPORTED)
def test_unsupported_sql_is_rejected(client, options, sql):
    with pytest.raises((fl.FlightError, pa.ArrowException)) as excinfo:
        query(client, options, sql)
    assert NOT_SUPPORTED_RE.search(str(excinfo.value)), f"message lacks 'not supported': {excinfo.value}"


def test_garbage_command_is_rejected(client, options):
    """A descriptor that is not a Flight SQL command must fail cleanly, not crash the server."""
    with pytest.raises((fl.FlightError, pa.ArrowException)):
        client.get_flight_info(fl.FlightDescriptor.for_command(b"\xff\x00not-protobuf"), options)
    # The server is still alive and answering afterwards.
    assert query(client, options, "SELECT count(*) FROM t").column(0).to_pylist() == [1000]


def test_command_encoding_is_canonical():
    """The hand encoder must produce the bytes Go's proto.Marshal(anypb(...)) does (spec 5.4).

    0x0a = field 1 (type_url), 0x43 = 67 bytes; 0x12 = field 2 (value), 10 bytes;
    inside: 0x0a = field 1 (query), 8 bytes.
    """
    want = (b"\x0a\x43type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
            b"\x12\n\n\x08SELECT 1")
    assert command_statement_query("SELECT 1") == want
