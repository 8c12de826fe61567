"""Test oracle for lanceformat/index: builds a dataset with pylance scalar indices and
answers filters with pylance full scans (no index), as JSON.

usage: pylance_oracle.py build DIR        -> builds the dataset, prints nothing
       pylance_oracle.py build_plain DIR  -> the same data without indices
       pylance_oracle.py commit_indices DIR -> commits our index segments (JSON on stdin)
       pylance_oracle.py build_stable DIR -> 100 rows with stable row ids, BTREE on i
       pylance_oracle.py build_big DIR    -> 200k rows, BTREE on u (many index pages)
       pylance_oracle.py query DIR        -> reads a JSON list of SQL filters on stdin and
                                             prints {"live": [...], "results": {sql: [...]}}
       pylance_oracle.py describe DIR     -> prints describe_indices() as JSON
"""
import json
import sys

import lance
import pyarrow as pa

ROWS_PER_FRAG = 4000


def batch(start, n):
    ks = range(start, start + n)
    return pa.table({
        "i": pa.array([None if k % 7 == 0 else k % 50 for k in ks], pa.int64()),
        "u": pa.array(list(ks), pa.int64()),
        "k": pa.array([None if k % 17 == 0 else k for k in ks], pa.int32()),
        "name": pa.array(["n%05d" % k for k in ks], pa.string()),
        "s": pa.array([None if k % 11 == 0 else "v%03d" % (k % 30) for k in ks], pa.string()),
        "f": pa.array([None if k % 13 == 0 else k / 3 for k in ks], pa.float64()),
        "l": pa.array([None if k % 9 == 0 else ["a%d" % (k % 5), "b%d" % (k % 3)] for k in ks],
                      pa.list_(pa.string())),
    })


def build(root, with_indices=True):
    ds = lance.write_dataset(batch(0, 3 * ROWS_PER_FRAG), root, max_rows_per_file=ROWS_PER_FRAG)
    for col, kind in [] if not with_indices else [("i", "BTREE"), ("u", "BTREE"), ("s", "BITMAP"), ("l", "LABEL_LIST"),
                      ("f", "ZONEMAP"), ("k", "BLOOMFILTER"), ("name", "BLOOMFILTER")]:
        ds.create_scalar_index(col, kind, name=f"{col}_{kind.lower()}")
    ds = lance.write_dataset(batch(3 * ROWS_PER_FRAG, 500), root, mode="append")
    ds.delete("u % 10 = 3")
    if with_indices:
        # Delta segments: these two indices get a second segment covering fragment 3.
        ds.optimize.optimize_indices(num_indices_to_merge=0, index_names=["i_btree", "s_bitmap"])


def build_plain(root):
    build(root, with_indices=False)


def commit_indices(root):
    """Commits index segments written by our Go writer (JSON list on stdin) with a
    CreateIndex transaction, then reports describe_indices and, for each filter, the rows
    of an indexed scan, of a full scan, and whether the plan used a scalar index."""
    from lance.dataset import Index, IndexFile, LanceOperation
    req = json.load(sys.stdin)
    ds = lance.dataset(root)
    new = [Index(uuid=e["uuid"], name=e["name"], fields=e["fields"],
                 dataset_version=e["dataset_version"], fragment_ids=set(e["fragment_ids"]),
                 index_version=e["index_version"], index_details=(e["type_url"], b""),
                 files=[IndexFile(path=f["path"], size_bytes=f["size"]) for f in e["files"]])
           for e in req["indices"]]
    ds = lance.LanceDataset.commit(root, LanceOperation.CreateIndex(new_indices=new, removed_indices=[]),
                                   read_version=ds.version)
    desc = [{"name": d.name, "type": d.index_type, "fields": list(d.field_names)}
            for d in ds.describe_indices()]
    out = {}
    for sql in req["filters"]:
        indexed = ds.to_table(columns=[], filter=sql, with_row_address=True)["_rowaddr"].to_pylist()
        scan = ds.to_table(columns=[], filter=sql, with_row_address=True,
                           use_scalar_index=False)["_rowaddr"].to_pylist()
        plan = ds.scanner(columns=[], filter=sql, with_row_address=True).explain_plan(True)
        out[sql] = {"indexed": sorted(indexed), "scan": sorted(scan), "plan": plan}
    json.dump({"describe": desc, "results": out}, sys.stdout)


def build_stable(root):
    ds = lance.write_dataset(batch(0, 100), root, enable_stable_row_ids=True)
    ds.create_scalar_index("i", "BTREE", name="i_btree")


def build_big(root):
    n = 200_000
    t = pa.table({"u": pa.array(range(n), pa.int64()),
                  "v": pa.array([(k * 7919) % n for k in range(n)], pa.int64())})
    ds = lance.write_dataset(t, root, max_rows_per_file=n // 2)
    ds.create_scalar_index("u", "BTREE", name="u_btree")


def query(root):
    ds = lance.dataset(root)
    live = ds.to_table(columns=[], with_row_address=True)["_rowaddr"].to_pylist()
    out = {}
    for sql in json.load(sys.stdin):
        t = ds.to_table(columns=[], filter=sql, with_row_address=True, use_scalar_index=False)
        out[sql] = t["_rowaddr"].to_pylist()
    json.dump({"live": live, "results": out}, sys.stdout)


def describe(root):
    ds = lance.dataset(root)
    out = []
    for d in ds.describe_indices():
        out.append({"name": d.name, "type": d.index_type, "fields": list(d.field_names),
                    "segments": [{"uuid": s.uuid, "fragments": sorted(s.fragment_ids),
                                  "dataset_version": s.dataset_version_at_last_update}
                                 for s in d.segments]})
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    {"build": build, "build_plain": build_plain, "commit_indices": commit_indices,
     "build_big": build_big, "build_stable": build_stable, "query": query, "describe": describe}[sys.argv[1]](sys.argv[2])
