"""Runs SQL in DuckDB over the tables of a flightd root, read by pylance: the oracle that
flightd's results are compared with.

usage: oracle.py ROOT SQL   → writes the result as an Arrow IPC stream to stdout.

Every <name>.lance folder under ROOT becomes a DuckDB view <name> over pylance's to_table().
Types DuckDB widens (HUGEINT sums come back as decimal128(38, 0)) are left as they are: the
comparison on the Go side normalises values, not types.
"""
import os
import sys

import duckdb
import lance
import pyarrow as pa


def main():
    root, sql = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    tables = {}
    for entry in sorted(os.listdir(root)):
        if entry.endswith(".lance"):
            name = entry[: -len(".lance")]
            tables[name] = lance.dataset(os.path.join(root, entry)).to_table()
            con.register(name, tables[name])
    result = con.sql(sql).to_arrow_table()
    if isinstance(result, pa.RecordBatchReader):
        result = result.read_all()
    sink = pa.output_stream(sys.stdout.buffer)
    with pa.ipc.new_stream(sink, result.schema) as w:
        w.write_table(result)


if __name__ == "__main__":
    main()
