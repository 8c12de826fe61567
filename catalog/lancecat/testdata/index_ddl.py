"""Test oracle for SQL index DDL (catalog/lancecat/index_ddl_test.go).

usage: index_ddl.py make ROOT VERSION  -> ROOT/t.lance (3 fragments, data storage VERSION,
                                          some rows deleted) and ROOT/u.lance (small)
       index_ddl.py append ROOT        -> appends 2 fragments to ROOT/t.lance
       index_ddl.py check ROOT         -> reads {"filters": [cond]} from stdin and prints
                                          {"indices": list_indices(), "describe": [...],
                                           "results": {cond: {"indexed", "scan", "plan"}}}
"""
import json
import sys

import lance
import pyarrow as pa

ROWS_PER_FRAG = 1000


def batch(start, n):
    ks = range(start, start + n)
    return pa.table({
        "id": pa.array(list(ks), pa.int64()),
        "cat": pa.array([None if k % 11 == 0 else "c%02d" % (k % 7) for k in ks], pa.string()),
        "tags": pa.array([["a%d" % (k % 5), "b%d" % (k % 3)] for k in ks], pa.list_(pa.string())),
        "f": pa.array([None if k % 13 == 0 else k / 4 for k in ks], pa.float64()),
        "k": pa.array([k * 7 % 1000 for k in ks], pa.int32()),
    })


def make(root, version):
    ds = lance.write_dataset(batch(0, 3 * ROWS_PER_FRAG), root + "/t.lance",
                             max_rows_per_file=ROWS_PER_FRAG, data_storage_version=version)
    ds.delete("id % 10 = 3")
    lance.write_dataset(batch(0, 10), root + "/u.lance", data_storage_version=version)


def append(root):
    lance.write_dataset(batch(3 * ROWS_PER_FRAG, 2 * ROWS_PER_FRAG), root + "/t.lance", mode="append",
                        max_rows_per_file=ROWS_PER_FRAG)


def check(root):
    ds = lance.dataset(root + "/t.lance")
    req = json.load(sys.stdin)
    out = {"version": ds.version, "indices": [], "describe": [], "results": {}}
    for ix in ds.list_indices():
        out["indices"].append({"name": ix["name"], "type": ix["type"], "fields": ix["fields"],
                               "fragment_ids": sorted(ix["fragment_ids"])})
    for d in ds.describe_indices():
        out["describe"].append({"name": d.name, "type_url": d.type_url, "num_segments": len(d.segments),
                                "num_rows_indexed": d.num_rows_indexed})
    for cond in req["filters"]:
        indexed = ds.to_table(filter=cond, columns=["id"])["id"].to_pylist()
        scan = ds.to_table(filter=cond, columns=["id"], use_scalar_index=False)["id"].to_pylist()
        plan = ds.scanner(filter=cond, columns=["id"]).explain_plan(True)
        out["results"][cond] = {"indexed": sorted(indexed), "scan": sorted(scan), "plan": plan}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    cmd, root = sys.argv[1], sys.argv[2]
    if cmd == "make":
        make(root, sys.argv[3])
    elif cmd == "append":
        append(root)
    elif cmd == "check":
        check(root)
    else:
        sys.exit("unknown command " + cmd)
