"""Checks SQL writes flightd made to a Lance dataset against DuckDB.

usage: dml_replay.py DATASET_DIR SQL...

Loads version 1 of the dataset (pylance) into a DuckDB table named after the dataset folder,
runs each SQL statement in DuckDB, and prints one JSON object:
  counts:   the rows each statement affected in DuckDB,
  duckdb:   DuckDB's final rows, sorted,
  lance:    pylance's rows of the latest version, sorted,
  version:  the latest version number pylance sees,
  versions: how many versions the dataset has.
Rows are lists of values rendered with str() (None stays null) so floats compare as text.
"""
import json
import os
import sys

import duckdb
import lance


def rows(tbl):
    out = [[None if v is None else str(v) for v in r.values()] for r in tbl.to_pylist()]
    return sorted(out, key=lambda r: [(v is None, v or "") for v in r])


def main():
    path, stmts = sys.argv[1], sys.argv[2:]
    name = os.path.basename(path.rstrip("/"))[: -len(".lance")]
    first = lance.dataset(path, version=1).to_table()
    con = duckdb.connect()
    con.register("v1", first)
    con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM v1')
    counts = []
    for sql in stmts:
        res = con.execute(sql).fetchall()
        counts.append(res[0][0] if res else 0)
    ds = lance.dataset(path)
    out = {
        "counts": counts,
        "duckdb": rows(con.sql(f'SELECT * FROM "{name}"').to_arrow_table()),
        "lance": rows(ds.to_table()),
        "version": ds.version,
        "versions": len(ds.versions()),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
