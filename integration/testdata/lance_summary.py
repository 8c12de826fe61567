"""Prints what pylance sees of a Lance dataset, in one line, for tests to compare:
version, row count, sum of column "id", and the schema.

usage: lance_summary.py DATASET_DIR
"""
import sys

import lance
import pyarrow.compute as pc


def main():
    ds = lance.dataset(sys.argv[1])
    tbl = ds.to_table()
    schema = ",".join(f"{f.name}:{f.type}" for f in ds.schema)
    total = pc.sum(tbl["id"]).as_py() if "id" in tbl.column_names else None
    print(f"version={ds.version} rows={ds.count_rows()} sum={total} schema={schema}")


if __name__ == "__main__":
    main()
