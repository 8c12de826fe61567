"""Generates TPC-H data as Lance tables and DuckDB's answers to the 22 queries over them.

usage: tpch.py SF QUERYDIR OUTDIR

  OUTDIR/lance/<table>.lance   pylance datasets of tpchgen-cli's rows (string_view → utf8)
  OUTDIR/duckdb/qNN.arrow      DuckDB's result of QUERYDIR/qNN.sql as an Arrow IPC stream,
                               DuckDB reading the same rows through pylance's to_table()

tpchgen-cli (pinned in integration/python/requirements.txt) implements TPC-H's dbgen.
"""
import os
import shutil
import subprocess
import sys

import duckdb
import lance
import pyarrow as pa
import pyarrow.parquet as pq

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]


def plain_schema(schema):
    fields = []
    for f in schema:
        t = f.type
        if t in (pa.string_view(), pa.large_string()):
            t = pa.string()
        fields.append(pa.field(f.name, t, f.nullable))
    return pa.schema(fields)


def main():
    sf, qdir, out = sys.argv[1], sys.argv[2], sys.argv[3]
    pqdir, lancedir, ddir = (os.path.join(out, d) for d in ("parquet", "lance", "duckdb"))
    for d in (pqdir, lancedir, ddir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    cli = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    subprocess.run([cli, "parquet", "-s", sf, f"--output-dir={pqdir}"], check=True,
                   stdout=subprocess.DEVNULL)
    con = duckdb.connect()
    tables = {}
    for t in TABLES:
        tab = pq.read_table(os.path.join(pqdir, f"{t}.parquet"))
        tab = tab.cast(plain_schema(tab.schema.remove_metadata()))
        dst = os.path.join(lancedir, f"{t}.lance")
        lance.write_dataset(tab, dst)
        tables[t] = lance.dataset(dst).to_table()
        con.register(t, tables[t])
    shutil.rmtree(pqdir)
    for name in sorted(os.listdir(qdir)):
        if not name.endswith(".sql"):
            continue
        with open(os.path.join(qdir, name)) as f:
            sql = f.read().strip().rstrip(";")
        result = con.sql(sql).to_arrow_table()
        if isinstance(result, pa.RecordBatchReader):
            result = result.read_all()
        dst = os.path.join(ddir, name[: -len(".sql")] + ".arrow")
        with pa.OSFile(dst, "wb") as sink, pa.ipc.new_stream(sink, result.schema) as w:
            w.write_table(result)


if __name__ == "__main__":
    main()
