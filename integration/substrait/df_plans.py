"""Produces DataFusion Substrait plans for SQL queries, for flightd's consumer tests.

usage: df_plans.py PARQUET_DIR QUERIES_DIR OUT_DIR [DUCKDB_FILE]

Registers every PARQUET_DIR/<table>.parquet in a DataFusion context under <table> (string
columns as plain utf8, as the Lance tables have them), then for each QUERIES_DIR/<name>.sql
writes OUT_DIR/<name>.bin (the serialized Substrait plan of DataFusion's optimized logical
plan) or OUT_DIR/<name>.err (why DataFusion could not produce one). With DUCKDB_FILE (a
database holding the same tables), it also writes DuckDB's answer to each query as an Arrow
IPC stream, OUT_DIR/<name>.duckdb.arrow.
"""
import os
import sys

import datafusion
import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from datafusion.substrait import Producer


def plain(table):
    """The table with string_view/large_string columns cast to utf8."""
    fields = []
    for f in table.schema:
        t = pa.string() if f.type in (pa.string_view(), pa.large_string()) else f.type
        fields.append(pa.field(f.name, t, f.nullable))
    return table.cast(pa.schema(fields))


def write_ipc(path, table):
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)


def duckdb_answer(con, sql):
    result = con.sql(sql).to_arrow_table()
    if isinstance(result, pa.RecordBatchReader):
        result = result.read_all()
    return result


def main():
    pqdir, qdir, out = sys.argv[1], sys.argv[2], sys.argv[3]
    con = duckdb.connect(sys.argv[4], read_only=True) if len(sys.argv) > 4 else None
    os.makedirs(out, exist_ok=True)
    ctx = datafusion.SessionContext()
    for fn in sorted(os.listdir(pqdir)):
        if fn.endswith(".parquet"):
            t = plain(pq.read_table(os.path.join(pqdir, fn)))
            ctx.register_record_batches(fn[: -len(".parquet")], [t.to_batches()])
    for fn in sorted(os.listdir(qdir)):
        if not fn.endswith(".sql"):
            continue
        name = fn[: -len(".sql")]
        with open(os.path.join(qdir, fn)) as f:
            sql = f.read().strip().rstrip(";")
        if con is not None:
            write_ipc(os.path.join(out, name + ".duckdb.arrow"), duckdb_answer(con, sql))
        try:
            # The optimized plan: DataFusion's optimizer decorrelates subqueries, which its
            # producer cannot express otherwise (outer references).
            plan = Producer.to_substrait_plan(ctx.sql(sql).optimized_logical_plan(), ctx)
            data = plan.encode()
        except Exception as e:  # noqa: BLE001 - reported to the Go test as text
            with open(os.path.join(out, name + ".err"), "w") as f:
                f.write(f"{type(e).__name__}: {e}")
            continue
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
