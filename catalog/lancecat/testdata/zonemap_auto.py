"""Test oracle for lancecat's automatic zone maps (catalog/lancecat/zonemap_auto_test.go).

usage: zonemap_auto.py inspect URI   reads {"filters": [cond, ...]} on stdin and prints
                                     {"indices": [{name, type, fields, fragments}],
                                      "fragments": [id, ...],
                                      "plans": {cond: explain_plan},
                                      "rows": {cond: sorted ids, index allowed},
                                      "rows_noindex": {cond: sorted ids, no index}}
       zonemap_auto.py make URI      writes a 3-fragment table (id int64, f float64, s utf8)
                                     with a BTREE on id, then switches flightd's automatic
                                     zone maps on with update_config
"""
import json
import sys

import lance
import pyarrow as pa


def inspect(uri):
    req = json.load(sys.stdin)
    ds = lance.dataset(uri)
    out = {"indices": [], "fragments": sorted(f.fragment_id for f in ds.get_fragments()),
           "plans": {}, "rows": {}, "rows_noindex": {}}
    for ix in ds.list_indices():
        out["indices"].append({"name": ix["name"], "type": ix["type"], "fields": list(ix["fields"]),
                               "fragments": sorted(ix["fragment_ids"])})
    for cond in req["filters"]:
        out["plans"][cond] = ds.scanner(columns=["id"], filter=cond).explain_plan(True)
        out["rows"][cond] = sorted(ds.to_table(columns=["id"], filter=cond)["id"].to_pylist())
        out["rows_noindex"][cond] = sorted(
            ds.to_table(columns=["id"], filter=cond, use_scalar_index=False)["id"].to_pylist())
    json.dump(out, sys.stdout)


def make(uri):
    n = 3000
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "f": pa.array([k / 4 for k in range(n)], pa.float64()),
                  "s": pa.array(["s%d" % (k % 10) for k in range(n)], pa.string())})
    ds = lance.write_dataset(t, uri, max_rows_per_file=1000)
    ds.create_scalar_index("id", "BTREE", name="id_idx")
    ds.update_config({"flightd.auto_zonemap": "true"})


if __name__ == "__main__":
    {"inspect": inspect, "make": make}[sys.argv[1]](sys.argv[2])
