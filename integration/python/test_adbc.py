"""flightd through the ADBC Flight SQL driver's DB-API (what pandas/polars users run)."""

from __future__ import annotations

import warnings

import adbc_driver_flightsql.dbapi as flightsql
import adbc_driver_manager
import pyarrow as pa
import pytest

from differential import (CASES, NOT_SUPPORTED_RE, UNSUPPORTED, assert_same_result,
                          xfail_newer_version_if_not_supported)


@pytest.fixture(scope="module")
def conn(flight_uri):
    """One DB-API connection for the module, opened the default way (autocommit=False)."""
    with warnings.catch_warnings():
        # Without transaction support the driver warns "Cannot disable autocommit".
        warnings.simplefilter("ignore")
        c = flightsql.connect(flight_uri)
    yield c
    c.close()


def fetch(conn, sql: str) -> pa.Table:
    """cursor.execute + fetch_arrow_table (prepare -> GetFlightInfo -> DoGet in the driver)."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetch_arrow_table()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_query_matches_duckdb(conn, duck, table, case):
    sql = case.render(table.name)
    try:
        got = fetch(conn, sql)
    except adbc_driver_manager.Error as exc:
        xfail_newer_version_if_not_supported(table.version, exc)
        raise
    assert_same_result(case, sql, got, duck)


def test_same_statement_twice(conn):
    """The driver reuses the prepared handle for a repeated statement; results must not change."""
    sql = "SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g"
    first, second = fetch(conn, sql), fetch(conn, sql)
    assert first.to_pylist() == second.to_pylist()
    assert sum(first.column("n").to_pylist()) == 1000


def test_empty_result_keeps_schema(conn):
    got = fetch(conn, "SELECT a, b FROM t WHERE a > 100000")
    assert got.num_rows == 0
    assert got.column_names == ["a", "b"]
    assert got.schema.field("a").type == pa.int64()


def test_unknown_table_is_not_found(conn):
    with pytest.raises(adbc_driver_manager.Error) as excinfo:
        fetch(conn, "SELECT a FROM no_such_table")
    exc = excinfo.value
    status = getattr(exc, "status_code", None)
    assert status == adbc_driver_manager.AdbcStatusCode.NOT_FOUND, (
        f"want ADBC NOT_FOUND (gRPC NotFound), got {status}: {exc}")
    assert "no_such_table" in str(exc), f"error does not name the table: {exc}"


@pytest.mark.parametrize("sql", UNSUPPORTED)
def test_unsupported_sql_is_rejected(conn, sql):
    with pytest.raises(adbc_driver_manager.Error) as excinfo:
        fetch(conn, sql)
    assert NOT_SUPPORTED_RE.search(str(excinfo.value)), f"message lacks 'not supported': {excinfo.value}"


def test_connection_usable_after_error(conn):
    with pytest.raises(adbc_driver_manager.Error):
        fetch(conn, "SELECT a FROM no_such_table")
    assert fetch(conn, "SELECT count(*) AS n FROM t").column("n").to_pylist() == [1000]
