"""Test oracle for lancecat's scalar-index scans (catalog/lancecat/index_test.go).

usage: index_tables.py build ROOT   -> ROOT/ix.lance (indexed by pylance, then appended to and
                                       deleted from) and ROOT/plain.lance (same data, no index);
                                       then answers {"query": [cond], "labels": [cond]} read
                                       from stdin with {"query": {cond: query(cond)},
                                       "labels": {cond: labels(cond)}} (see below)
       index_tables.py big ROOT     -> ROOT/big.lance: 1M rows, BTREE on id

query(cond): the sorted u of the rows of ix that match, from pylance with and without its
indexes and from DuckDB. labels(cond): pylance's matching row addresses of ix (no index).
"""
import datetime
import json
import sys

import duckdb
import lance
import pyarrow as pa

ROWS_PER_FRAG = 3000
EPOCH = datetime.datetime(2024, 1, 1)


def batch(start, n):
    ks = range(start, start + n)
    return pa.table({
        "u": pa.array(list(ks), pa.int64()),
        "s": pa.array([None if k % 11 == 0 else "v%03d" % (k % 30) for k in ks], pa.string()),
        "l": pa.array([None if k % 9 == 0 else ["a%d" % (k % 5), "b%d" % (k % 3)] for k in ks],
                      pa.list_(pa.string())),
        "f": pa.array([None if k % 13 == 0 else k / 3 for k in ks], pa.float64()),
        "k": pa.array([None if k % 17 == 0 else k for k in ks], pa.int32()),
        "ts": pa.array([EPOCH + datetime.timedelta(minutes=k) for k in ks], pa.timestamp("us")),
        "pad": pa.array(["p%07d" % k for k in ks], pa.string()),
    })


INDEXES = [("u", "BTREE"), ("s", "BITMAP"), ("l", "LABEL_LIST"), ("f", "ZONEMAP"),
           ("k", "BLOOMFILTER"), ("ts", "BTREE")]


def build_one(root, with_indexes):
    ds = lance.write_dataset(batch(0, 4 * ROWS_PER_FRAG), root, max_rows_per_file=ROWS_PER_FRAG)
    if with_indexes:
        for col, kind in INDEXES:
            ds.create_scalar_index(col, kind, name=f"{col}_idx")
    # After the index: a fragment it does not cover, deleted rows, and a fragment deleted
    # whole (its id stays in the index's fragment bitmap).
    ds = lance.write_dataset(batch(4 * ROWS_PER_FRAG, 1000), root, mode="append")
    ds.delete("u % 10 = 3")
    ds.delete("u >= 3000 AND u < 6000")


def build(root):
    build_one(root + "/ix.lance", True)
    build_one(root + "/plain.lance", False)
    req = json.load(sys.stdin)
    json.dump({"query": query(root, req["query"]), "labels": labels(root, req["labels"])}, sys.stdout)


def big(root):
    n = 1_000_000
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "v": pa.array([(k * 7919) % n for k in range(n)], pa.int64()),
                  "name": pa.array(["name-%09d" % k for k in range(n)], pa.string())})
    ds = lance.write_dataset(t, root + "/big.lance", max_rows_per_file=n // 4)
    ds.create_scalar_index("id", "BTREE", name="id_idx")


def query(root, conds):
    ds = lance.dataset(root + "/ix.lance")
    tbl = ds.to_table()  # noqa: F841 (DuckDB reads it by name)
    out = {}
    for cond in conds:
        with_ix = ds.to_table(columns=["u"], filter=cond)["u"].to_pylist()
        without = ds.to_table(columns=["u"], filter=cond, use_scalar_index=False)["u"].to_pylist()
        duck = [r[0] for r in duckdb.sql(f"SELECT u FROM tbl WHERE {cond} ORDER BY u").fetchall()]
        out[cond] = {"lance": sorted(with_ix), "lance_noindex": sorted(without), "duckdb": duck}
    return out


def labels(root, conds):
    ds = lance.dataset(root + "/ix.lance")
    out = {}
    for cond in conds:
        t = ds.to_table(columns=[], filter=cond, with_row_address=True, use_scalar_index=False)
        out[cond] = sorted(t["_rowaddr"].to_pylist())
    return out


if __name__ == "__main__":
    {"build": build, "big": big}[sys.argv[1]](sys.argv[2])
