"""Writes Lance datasets whose files live under base paths, with pylance, and prints what
pylance reads at every version as JSON: {table: {version: [[x, s], ...] sorted by x}}.

Usage: make_bases.py OUT_DIR. Tables (under OUT_DIR/root, the catalog root):
  multibase  created with two registered bases: "other" (not a dataset root) and "r2" (a
             dataset root); v1 written to "other", v2 appended to "r2", v3 appended to the
             dataset's own data/, v4 and v5 delete rows (one per base), v6 adds a column.
  clone      a shallow clone of OUT_DIR/src.lance at its version 3 (files and deletion files
             under the source, a dataset-root base), then v2 appended by pylance to the clone
             and v3 deleting a row of the source's files.
"""

import json
import os
import sys

import lance
import pyarrow as pa
import pyarrow.compute as pc


def rows(ds):
    t = ds.to_table()
    t = t.sort_by("x")
    return [list(r.values()) for r in t.to_pylist()]


def table(xs):
    return pa.table({"x": pa.array(xs, pa.int64()), "s": pa.array([f"s{x}" for x in xs], pa.string())})


def every_version(uri):
    ds = lance.dataset(uri)
    return {str(v["version"]): rows(lance.dataset(uri, version=v["version"])) for v in ds.versions()}


def main():
    out = sys.argv[1]
    root = os.path.join(out, "root")
    os.makedirs(root)
    mb = os.path.join(root, "multibase.lance")
    bases = [
        lance.DatasetBasePath(os.path.join(out, "other"), name="other", is_dataset_root=False),
        lance.DatasetBasePath(os.path.join(out, "r2"), name="r2", is_dataset_root=True),
    ]
    lance.write_dataset(table(range(0, 10)), mb, initial_bases=bases, target_bases=["other"])
    lance.write_dataset(table(range(10, 20)), mb, mode="append", target_bases=["r2"])
    lance.write_dataset(table(range(20, 30)), mb, mode="append")
    ds = lance.dataset(mb)
    ds.delete("x = 3 OR x = 4")
    ds.delete("x = 15 OR x = 25")
    ds.add_columns({"y": "x * 2"})

    src = os.path.join(out, "src.lance")
    lance.write_dataset(table(range(100, 110)), src)
    lance.write_dataset(table(range(110, 120)), src, mode="append")
    lance.dataset(src).delete("x = 101")
    clone = os.path.join(root, "clone.lance")
    lance.dataset(src).shallow_clone(clone, 3)
    lance.write_dataset(table(range(120, 125)), clone, mode="append")
    lance.dataset(clone).delete("x = 111 OR x = 121")

    res = {"multibase": every_version(mb), "clone": every_version(clone)}
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
