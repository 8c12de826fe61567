"""SQL writes (INSERT, UPDATE, DELETE) through ADBC's DB-API: the row counts the cursor
reports, one new Lance version per statement (read back by pylance), and the rows, which
DuckDB, running the same statements, must agree with."""

from __future__ import annotations

import warnings

import adbc_driver_flightsql.dbapi as flightsql
import duckdb
import lance
import pyarrow as pa
import pytest


@pytest.fixture(scope="module")
def conn(flight_uri):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Cannot disable autocommit": no transactions
        c = flightsql.connect(flight_uri)
    yield c
    c.close()


def sorted_rows(tbl: pa.Table) -> list[tuple]:
    return sorted(tuple(r.values()) for r in tbl.to_pylist())


def test_writes_match_duckdb_and_commit_one_version_each(conn, lance_root):
    path = str(lance_root / "dml_adbc.lance")
    first = pa.table({"id": pa.array(range(10), pa.int64()), "name": [f"n{i}" for i in range(10)]})
    lance.write_dataset(first, path, max_rows_per_file=4)
    duck = duckdb.connect()
    duck.register("v1", first)
    duck.execute("CREATE TABLE dml_adbc AS SELECT * FROM v1")

    steps = [
        "INSERT INTO dml_adbc VALUES (10, 'ten'), (11, NULL)",
        "UPDATE dml_adbc SET name = upper(name) WHERE id % 2 = 0",
        "DELETE FROM dml_adbc WHERE id < 3 OR name IS NULL",
        "INSERT INTO dml_adbc SELECT id + 100, name || '+' FROM dml_adbc WHERE id > 7",
    ]
    version = 1
    for sql in steps:
        want = duck.execute(sql).fetchall()[0][0]
        assert want > 0
        with conn.cursor() as cur:
            cur.execute(sql)
            assert cur.rowcount == want, sql
            assert cur.fetchall() == [(want,)], sql  # DuckDB's answer to a write: one row, Count
        version += 1
        assert lance.dataset(path).version == version, f"one version per statement: {sql}"

    # executemany binds each row of parameters in turn (DoPut of the prepared update).
    params = [(20, "twenty"), (21, None), (22, "x")]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO dml_adbc VALUES (?, ?)", params)
        assert cur.rowcount == len(params)
    for p in params:
        duck.execute("INSERT INTO dml_adbc VALUES (?, ?)", p)
    version += len(params)

    # execute with parameters: a prepared statement, values bound, executed as a query.
    want = duck.execute("UPDATE dml_adbc SET name = ? WHERE id >= ?", ("bound", 21)).fetchall()[0][0]
    assert want > 0
    with conn.cursor() as cur:
        cur.execute("UPDATE dml_adbc SET name = ? WHERE id >= ?", ("bound", 21))
        assert cur.rowcount == want
    version += 1

    ds = lance.dataset(path)
    assert ds.version == version
    assert sorted_rows(ds.to_table()) == sorted_rows(duck.sql("SELECT * FROM dml_adbc").to_arrow_table())
    with conn.cursor() as cur:
        cur.execute("SELECT count(*), sum(id) FROM dml_adbc")
        assert cur.fetchall() == duck.execute("SELECT count(*), sum(id) FROM dml_adbc").fetchall()


def test_write_errors(conn, lance_root):
    path = str(lance_root / "dml_errors.lance")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    lance.write_dataset(pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema), path)
    with conn.cursor() as cur:
        with pytest.raises(Exception, match="NOT NULL constraint failed"):
            cur.execute("INSERT INTO dml_errors VALUES (NULL, 'x')")
        with pytest.raises(Exception, match="past version"):
            cur.execute("DELETE FROM dml_errors AT (VERSION => 1)")
    assert lance.dataset(path).version == 1, "a failed write commits nothing"
