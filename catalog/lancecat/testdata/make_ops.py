"""Runs every pylance table operation on small datasets and prints, as JSON, what pylance
reads at every version: rows (sorted by k), the flattened schema (name, field id) and the
commit timestamp; then the versions left after cleanup and the tags.

Usage: make_ops.py write|cleanup OUT_DIR ("cleanup" removes the old versions and prints the
versions and tags left). One dataset per storage version: ops20 (V1 manifest names),
ops21 and ops22 (V2 names). Operations, one version each: create (3 fragments), append,
delete, update, add_columns (a second data file per fragment), merge (a third), rename,
drop, restore of version 3, append, compaction; tag "mid" on version 5.
"""

import json
import sys
from datetime import datetime, timedelta, timezone

import lance
import pyarrow as pa


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def table(start, n, s="s"):
    ks = list(range(start, start + n))
    return pa.table({"k": pa.array(ks, pa.int64()), "s": pa.array([f"{s}{k}" for k in ks], pa.string())})


def fields(schema):
    out = []

    def walk(f):
        out.append([f.name(), f.id()])
        for c in f.children():
            walk(c)

    for f in schema.fields():
        walk(f)
    return out


def snapshot(ds):
    t = ds.to_table().sort_by("k")
    return {
        "rows": [list(r.values()) for r in t.to_pylist()],
        "fields": fields(ds.lance_schema),
    }


def unix_micros(ts):
    """Exact Unix microseconds of ts (a naive local datetime, as pylance returns them)."""
    return (ts.astimezone(timezone.utc) - EPOCH) // timedelta(microseconds=1)


def asof(p, ts):
    """The version pylance checks out as of ts; 0 when ts is before the first version."""
    try:
        return lance.dataset(p, asof=ts).version
    except ValueError:
        return 0


def run(p, version, v2_names):
    ds = lance.write_dataset(table(0, 100), p, data_storage_version=version, max_rows_per_file=40,
                             enable_v2_manifest_paths=v2_names)
    lance.write_dataset(table(100, 50), p, mode="append")
    ds = lance.dataset(p)
    ds.delete("k % 10 = 0")
    ds.update({"s": "'upd'"}, where="k < 20")
    ds.add_columns({"c": "k * 2"})
    ds = lance.dataset(p)
    ds.merge(pa.table({"k": pa.array(range(0, 200), pa.int64()), "m": pa.array([k % 3 for k in range(200)], pa.int32())}), "k")
    ds = lance.dataset(p)
    ds.alter_columns({"path": "s", "name": "s2"})
    ds = lance.dataset(p)
    ds.drop_columns(["c"])
    ds = lance.dataset(p)
    ds.tags.create("mid", 5)
    lance.dataset(p, version=3).restore()
    lance.write_dataset(table(200, 20), p, mode="append")
    ds = lance.dataset(p)
    ds.optimize.compact_files(target_rows_per_fragment=1000)
    ds = lance.dataset(p)
    out = {"versions": {}, "asof": []}
    for v in ds.versions():
        n = v["version"]
        out["versions"][str(n)] = snapshot(lance.dataset(p, version=n))
        # Time travel: pylance's checkout as of 3 µs before and after the version's
        # timestamp. pylance picks the newest version committed strictly before the
        # instant, flightd the newest at or before it, and pylance's microsecond timestamps
        # can be 1 µs off (they pass through a float): the margin keeps the instants away
        # from where those differences show.
        for ts in (v["timestamp"] - timedelta(microseconds=3), v["timestamp"] + timedelta(microseconds=3)):
            out["asof"].append([unix_micros(ts), asof(p, ts)])
    return out


def cleanup(p):
    lance.dataset(p).cleanup_old_versions(older_than=timedelta(seconds=0), error_if_tagged_old_versions=False)
    ds = lance.dataset(p)
    return {"versions": [v["version"] for v in ds.versions()],
            "tags": {name: t["version"] for name, t in ds.tags.list().items()}}


def main(mode, out):
    res = {}
    for version, v2 in (("2.0", False), ("2.1", True), ("2.2", True)):
        name = "ops" + version.replace(".", "")
        p = f"{out}/{name}.lance"
        res[name] = run(p, version, v2) if mode == "write" else cleanup(p)
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
