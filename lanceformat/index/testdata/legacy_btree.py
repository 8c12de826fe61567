"""Writes a BTree segment in the legacy v1 layout (Lance <= 0.20) into sys.argv[1].

stdin: {"values": [...sorted, nulls first...], "ids": [...], "page": rows per page,
"type": "int64" | "string"}. page_data.lance holds one record batch per page (columns
values, row_ids); page_lookup.lance one row per page (min, max, null_count, page_idx).
Both are written by pylance as legacy v1 data files, which embed their schema.
"""
import glob, json, os, shutil, sys, tempfile

import lance
import pyarrow as pa


def write_legacy(table, dst, rows_per_group):
    with tempfile.TemporaryDirectory() as tmp:
        lance.write_dataset(table, tmp + "/ds", data_storage_version="legacy",
                            max_rows_per_group=rows_per_group)
        files = glob.glob(tmp + "/ds/data/*.lance")
        assert len(files) == 1, files
        shutil.copy(files[0], dst)


def main(out):
    spec = json.load(sys.stdin)
    typ = pa.int64() if spec["type"] == "int64" else pa.string()
    values, ids, page = spec["values"], spec["ids"], spec["page"]
    os.makedirs(out, exist_ok=True)
    data = pa.table({"values": pa.array(values, typ), "row_ids": pa.array(ids, pa.uint64())})
    write_legacy(data, out + "/page_data.lance", page)
    mins, maxs, nulls, idx = [], [], [], []
    for k, lo in enumerate(range(0, len(values), page)):
        vs = values[lo:lo + page]
        real = [v for v in vs if v is not None]
        mins.append(real[0] if real else None)
        maxs.append(real[-1] if real else None)
        nulls.append(len(vs) - len(real))
        idx.append(k)
    lookup = pa.table({"min": pa.array(mins, typ), "max": pa.array(maxs, typ),
                       "null_count": pa.array(nulls, pa.uint32()), "page_idx": pa.array(idx, pa.uint32())})
    write_legacy(lookup, out + "/page_lookup.lance", 1 << 20)


if __name__ == "__main__":
    main(sys.argv[1])
