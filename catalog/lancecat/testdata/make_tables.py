"""Writes the Lance tables the catalog/lancecat tests read, with pylance.

Usage: make_tables.py OUT_DIR [FIXTURES_DIR]

Writes OUT_DIR/<name>.lance datasets and, for each checked version, OUT_DIR/<name>.v<N>.arrow:
the table as pylance's to_table() reads it, as an Arrow IPC file. Prints a JSON document
{"tables": {name: {"latest": N, "expected": {version: rows}}},
 "fixtures": {path: {"rows": N, "expected": file}}}.
With FIXTURES_DIR (the old-Lance corpus, read in place, never written), also dumps what pylance
reads from some of its 2.0 datasets.
"""
import json
import sys

import lance
import pyarrow as pa


def table(start, n):
    r = range(start, start + n)
    return pa.table({
        "i64": pa.array(list(r), pa.int64()),
        "f64": pa.array([i / 4.0 for i in r], pa.float64()),
        "s": pa.array([None if i % 5 == 0 else f"row-{i}" for i in r], pa.string()),
        "b": pa.array([i % 3 == 0 for i in r], pa.bool_()),
        "st": pa.array([{"x": i, "y": f"y{i % 4}"} for i in r],
                       pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "l": pa.array([None if i % 11 == 0 else list(range(i % 4)) for i in r], pa.list_(pa.int32())),
        "vec": pa.array([[float(i), -float(i)] for i in r], pa.list_(pa.float32(), 2)),
    })


def dump(out, name, ds, res):
    v = ds.version
    t = ds.to_table()
    with pa.ipc.new_file(f"{out}/{name}.v{v}.arrow", t.schema) as w:
        w.write_table(t)
    res.setdefault(name, {"expected": {}})
    res[name]["expected"][str(v)] = t.num_rows
    res[name]["latest"] = lance.dataset(ds.uri).latest_version


def main(out):
    res = {}
    for v in ("2.0", "2.1", "2.2"):
        name = "t" + v.replace(".", "")
        p = f"{out}/{name}.lance"
        # t20 also covers V1 manifest names.
        ds = lance.write_dataset(table(0, 3000), p, data_storage_version=v, max_rows_per_file=1000,
                                 enable_v2_manifest_paths=(v != "2.0"))
        dump(out, name, ds, res)
        ds = lance.write_dataset(table(3000, 1000), p, mode="append")
        ds.tags.create("before_delete", 2)
        ds.delete("i64 % 7 = 0")
        dump(out, name, lance.dataset(p), res)

    # One fragment of 150000 rows spanning several scan batches, with a Roaring deletion file.
    p = f"{out}/big.lance"
    lance.write_dataset(pa.table({"i64": pa.array(range(150000), pa.int64())}), p,
                        data_storage_version="2.1")
    ds = lance.dataset(p)
    # Scattered deletions plus a block of 6000 that straddles the 64Ki-row batch boundary;
    # more than 5000 in total, so pylance writes a Roaring bitmap.
    ds.delete("i64 % 1000 = 0 OR (i64 >= 60000 AND i64 < 66000)")
    dump(out, "big", lance.dataset(p), res)

    # Schema evolution: a computed column in new data files, then an all-null column that no
    # data file holds, then an append that has both.
    p = f"{out}/evolved.lance"
    ds = lance.write_dataset(table(0, 100), p, data_storage_version="2.1")
    ds.add_columns({"c": "i64 * 2"})
    ds = lance.dataset(p)
    ds.add_columns(pa.field("n", pa.int64()))
    ds = lance.dataset(p)
    dump(out, "evolved", ds, res)
    extra = table(100, 50)
    extra = extra.append_column("c", pa.array([i * 2 for i in range(100, 150)], pa.int64()))
    extra = extra.append_column("n", pa.array([i if i % 2 else None for i in range(100, 150)], pa.int64()))
    ds = lance.write_dataset(extra, p, mode="append")
    dump(out, "evolved", ds, res)

    # Stable row ids: reading must not care.
    p = f"{out}/stable.lance"
    lance.write_dataset(table(0, 20), p, enable_stable_row_ids=True)
    ds = lance.write_dataset(table(20, 10), p, mode="append")
    ds.delete("i64 % 4 = 1")
    dump(out, "stable", lance.dataset(p), res)

    fixtures = {}
    if len(sys.argv) > 2:
        for rel in FIXTURES:
            t = lance.dataset(f"{sys.argv[2]}/{rel}").to_table()
            name = "fixture-" + rel.replace("/", "_") + ".arrow"
            with pa.ipc.new_file(f"{out}/{name}", t.schema) as w:
                w.write_table(t)
            fixtures[rel] = {"rows": t.num_rows, "expected": name}
    json.dump({"tables": res, "fixtures": fixtures}, sys.stdout)


# 2.0 datasets of the old-Lance corpus that pylance 14 still reads.
FIXTURES = [
    "v0.15.0/v2_with_files.lance",
    "0.36.0/btree_in_index_pkg.lance",
    "v0.20.0/old_btree_bitmap_indices.lance",
    "v0.18.2/index_no_details.lance",
]


if __name__ == "__main__":
    main(sys.argv[1])
