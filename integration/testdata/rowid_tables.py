"""Writes tables with pinned pylance into ROOT and prints what pylance reads of their hidden
row columns, for the _rowid/_rowaddr differential test (integration/rowid_test.go).

usage: rowid_tables.py ROOT

Each table has x int64 and s utf8. Printed: one JSON object whose "tables" maps a table name
to its rows of [_rowid, _rowaddr, x, s] as strings, in pylance's scan order, from
to_table(with_row_id=True, with_row_address=True). The table "big" (fragments of more than
one scan batch, deletions, stable row ids) is summed instead, under "big_sums": [count,
sum(_rowid), sum(_rowaddr), sum((_rowaddr % 65537) * x)].
"""
import json
import sys

import lance
import pyarrow as pa


def rows(n, start=0):
    return pa.table(
        {
            "x": pa.array(range(start, start + n), pa.int64()),
            "s": pa.array([f"v{i}" for i in range(start, start + n)], pa.string()),
        }
    )


def make(uri, name, version="2.2", stable=False):
    """Several fragments, deletions in two of them, one append; name picks the extra steps."""
    ds = lance.write_dataset(
        rows(10), uri, data_storage_version=version, max_rows_per_file=4, enable_stable_row_ids=stable
    )
    ds = lance.write_dataset(rows(5, 100), uri, mode="append")
    if "plain" in name:
        return
    ds.delete("x % 3 = 0")
    if "update" in name:
        ds.update({"s": "'upd'"}, where="x = 4")
    if "compact" in name:
        ds.optimize.compact_files()


TABLES = {
    "plain": {},
    "deleted": {},
    "compacted": {},
    "v20": {"version": "2.0"},
    "v21": {"version": "2.1"},
    "stable_plain": {"stable": True},
    "stable_deleted_update": {"stable": True},
    "stable_compacted": {"stable": True},
}


def main():
    root = sys.argv[1]
    out = {}
    for name, kw in TABLES.items():
        uri = f"{root}/{name}.lance"
        make(uri, name, **kw)
        t = lance.dataset(uri).to_table(with_row_id=True, with_row_address=True)
        d = t.to_pydict()
        out[name] = [
            [str(d["_rowid"][i]), str(d["_rowaddr"][i]), str(d["x"][i]), d["s"][i]] for i in range(t.num_rows)
        ]
    big = f"{root}/big.lance"
    ds = lance.write_dataset(rows(200_000), big, max_rows_per_file=150_000, enable_stable_row_ids=True)
    ds.delete("x % 7 = 3 OR (x > 70000 AND x < 140000)")
    lance.write_dataset(rows(1000, 500_000), big, mode="append")
    d = lance.dataset(big).to_table(columns=["x"], with_row_id=True, with_row_address=True).to_pydict()
    n = len(d["x"])
    out = {"tables": out}
    out["big_sums"] = [str(v) for v in (
        n, sum(d["_rowid"]), sum(d["_rowaddr"]), sum((d["_rowaddr"][i] % 65537) * d["x"][i] for i in range(n)),
    )]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
