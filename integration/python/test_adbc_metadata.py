"""ADBC's metadata and write calls against flightd: get_info, get_objects at every depth,
get_table_schema, parameters, and adbc_ingest read back by pylance."""

from __future__ import annotations

import warnings

import adbc_driver_flightsql.dbapi as flightsql
import lance
import pyarrow as pa
import pytest


@pytest.fixture()
def conn(flight_uri):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Cannot disable autocommit": no transactions
        c = flightsql.connect(flight_uri)
    yield c
    c.close()


def test_get_info(conn):
    info = conn.adbc_get_info()
    assert info["vendor_name"] == "flightd"
    assert info["vendor_version"]
    assert info["vendor_arrow_version"] == "18.8.0"


@pytest.mark.parametrize("depth", ["catalogs", "db_schemas", "tables", "columns", "all"])
def test_get_objects_every_depth(conn, depth):
    objs = conn.adbc_get_objects(depth=depth).read_all().to_pylist()
    assert [o["catalog_name"] for o in objs] == ["flightd"]
    if depth == "catalogs":
        return
    schemas = objs[0]["catalog_db_schemas"]
    assert [s["db_schema_name"] for s in schemas] == ["main"]
    if depth == "db_schemas":
        return
    tables = {t["table_name"]: t for t in schemas[0]["db_schema_tables"]}
    assert "t" in tables
    if depth in ("columns", "all"):
        cols = [c["column_name"] for c in tables["t"]["table_columns"]]
        assert cols[:3] == ["a", "b", "c"]


def test_get_table_schema(conn, lance_tables):
    schema = conn.adbc_get_table_schema("t")
    assert schema.names == lance.dataset(str(lance_tables["t"].path)).schema.names


def test_parameters(conn, duck):
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) AS n FROM t WHERE a > ? AND b <> ?", parameters=(500, "x"))
        got = cur.fetch_arrow_table().column("n").to_pylist()
    want = duck.sql("SELECT count(*) FROM t WHERE a > 500 AND b <> 'x'").fetchall()[0][0]
    assert got == [want]


def test_fetch_df(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g")
        df = cur.fetch_df()
    assert list(df.columns) == ["g", "n"]
    assert int(df["n"].sum()) == 1000


def test_ingest_create_then_append_read_by_pylance(conn, lance_root):
    data = pa.table({"id": pa.array(range(100), pa.int64()), "name": [f"n{i}" for i in range(100)]})
    with conn.cursor() as cur:
        assert cur.adbc_ingest("ingested", data, mode="create") == 100
        assert cur.adbc_ingest("ingested", data.slice(0, 10), mode="append") == 10
    ds = lance.dataset(str(lance_root / "ingested.lance"))
    assert ds.version == 2
    assert ds.count_rows() == 110
    assert ds.schema.names == ["id", "name"]
    assert sorted(ds.to_table().column("id").to_pylist()) == sorted(list(range(100)) + list(range(10)))
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) AS n, sum(id) AS s FROM ingested")
        assert cur.fetchall() == [(110, 4950 + 45)]
