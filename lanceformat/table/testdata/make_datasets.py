"""Writes the Lance datasets the lanceformat/table tests read, with pylance.

Usage: make_datasets.py OUT_DIR
Prints a JSON document describing what was written (the tests' expectations).
"""
import json
import sys

import lance
import pyarrow as pa


def table(start, n):
    return pa.table({
        "a": pa.array(range(start, start + n), pa.int64()),
        "s": pa.array([f"s{i}" if i % 7 else None for i in range(start, start + n)]),
    })


def frag_info(ds):
    out = []
    for f in ds.get_fragments():
        out.append({"id": f.fragment_id, "physical_rows": f.physical_rows,
                    "live_rows": f.count_rows()})
    return out


def describe(ds):
    return {
        "latest": ds.latest_version,
        "versions": [v["version"] for v in ds.versions()],
        "fragments": frag_info(ds),
        "rows": ds.count_rows(),
        "format": ds.data_storage_version,
    }


def main(out):
    res = {}

    # V2 names, default storage version (2.2), three versions, a delete and tags.
    p = f"{out}/default.lance"
    ds = lance.write_dataset(table(0, 100), p)
    ds = lance.write_dataset(table(100, 50), p, mode="append")
    ds.delete("a % 10 = 0")
    ds.tags.create("first", 1)
    ds.tags.create("appended", 2)
    res["default"] = describe(lance.dataset(p))

    # V1 names, storage 2.0, two versions.
    p = f"{out}/v1_20.lance"
    lance.write_dataset(table(0, 10), p, data_storage_version="2.0",
                        enable_v2_manifest_paths=False)
    ds = lance.write_dataset(table(10, 5), p, mode="append")
    res["v1_20"] = describe(ds)

    # V2 names, storage 2.1, overwrite.
    p = f"{out}/v2_21.lance"
    lance.write_dataset(table(0, 10), p, data_storage_version="2.1")
    ds = lance.write_dataset(table(0, 3), p, mode="overwrite")
    res["v2_21"] = describe(ds)

    # Enough deletions in one fragment for a Roaring (.bin) deletion file.
    p = f"{out}/bitmap.lance"
    ds = lance.write_dataset(table(0, 20000), p)
    ds.delete("a < 12000 AND a % 2 = 0")
    ds = lance.dataset(p)
    res["bitmap"] = describe(ds)

    # Stable row ids: append and delete.
    p = f"{out}/stable.lance"
    lance.write_dataset(table(0, 10), p, enable_stable_row_ids=True)
    ds = lance.write_dataset(table(10, 10), p, mode="append")
    ds.delete("a = 3")
    ds = lance.dataset(p)
    res["stable"] = describe(ds)

    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
