"""Generates TPC-H data for flightd's benchmarks: Lance tables, Parquet files, a DuckDB file.

usage: gen.py SF OUTDIR

  OUTDIR/parquet/<table>.parquet   tpchgen-cli (pinned; dbgen-compatible data and schema:
                                   int64 keys, decimal(15,2), date32, strings)
  OUTDIR/lance/<table>.lance       pylance datasets (default data storage version of the
                                   pinned pylance; string_view columns cast to utf8)
  OUTDIR/tpch.duckdb               DuckDB native tables loaded from the Parquet files

The data comes from tpchgen-cli rather than DuckDB's `CALL dbgen`: the pinned DuckDB (2.0.0)
has no offline tpch extension, and the pip-packaged extension pins an older DuckDB. Both
implement the TPC-H dbgen generator; every engine here reads the same generated rows.
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


def plain_strings(schema):
    """The schema with string_view/large_string fields as utf8 (what Lance readers expect)."""
    fields = []
    for f in schema:
        t = f.type
        if t in (pa.string_view(), pa.large_string()):
            t = pa.string()
        fields.append(pa.field(f.name, t, f.nullable))
    return pa.schema(fields)


def to_lance(src, dst):
    pf = pq.ParquetFile(src)
    schema = plain_strings(pf.schema_arrow.remove_metadata())
    schema = pa.schema([f.remove_metadata() for f in schema])

    def batches():
        for b in pf.iter_batches(batch_size=64 * 1024):
            yield pa.Table.from_batches([b]).cast(schema).to_batches()[0]

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    lance.write_dataset(reader, dst, schema=schema)


def main():
    sf, out = sys.argv[1], sys.argv[2]
    pqdir, lancedir = os.path.join(out, "parquet"), os.path.join(out, "lance")
    for d in (pqdir, lancedir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    cli = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    subprocess.run([cli, "parquet", "-s", sf, f"--output-dir={pqdir}"], check=True,
                   stdout=subprocess.DEVNULL)
    dbpath = os.path.join(out, "tpch.duckdb")
    if os.path.exists(dbpath):
        os.remove(dbpath)
    con = duckdb.connect(dbpath)
    for t in TABLES:
        src = os.path.join(pqdir, f"{t}.parquet")
        to_lance(src, os.path.join(lancedir, f"{t}.lance"))
        path = src.replace("'", "''")
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{path}')")
    con.close()


if __name__ == "__main__":
    main()
