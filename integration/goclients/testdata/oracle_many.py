"""Runs many SQL statements in DuckDB over the tables of a flightd root, read by pylance, in one
process (loading pylance and DuckDB once): the batch form of integration/testdata/oracle.py.

usage: oracle_many.py ROOT < queries.json   (a JSON list of SQL strings)

Writes, for each query in order, an 8-byte little-endian length followed by the result as an
Arrow IPC stream of that many bytes.
"""
import io
import json
import os
import struct
import sys

import duckdb
import lance
import pyarrow as pa


def main():
    root = sys.argv[1]
    sqls = json.load(sys.stdin)
    con = duckdb.connect()
    tables = {}
    for entry in sorted(os.listdir(root)):
        if entry.endswith(".lance"):
            name = entry[: -len(".lance")]
            tables[name] = lance.dataset(os.path.join(root, entry)).to_table()
            con.register(name, tables[name])
    out = sys.stdout.buffer
    for sql in sqls:
        result = con.sql(sql).to_arrow_table()
        if isinstance(result, pa.RecordBatchReader):
            result = result.read_all()
        buf = io.BytesIO()
        with pa.ipc.new_stream(buf, result.schema) as w:
            w.write_table(result)
        data = buf.getvalue()
        out.write(struct.pack("<Q", len(data)))
        out.write(data)
    out.flush()


if __name__ == "__main__":
    main()
