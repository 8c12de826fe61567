"""Writes Lance datasets whose pages use the opt-in encodings pylance only writes when field
metadata asks for them, for the Go reader tests (encodings_test.go).

Usage: gen_encodings.py OUTDIR

Tables (each in 2.0, 2.1 and 2.2 unless noted):
  fsst    strings with "lance-encoding:compression" = "fsst": 2.0 writes the Fsst
          ArrayEncoding (2.1+ choose their own compression and ignore it). Large strings
          are left out: pylance 14 panics writing them with FSST in 2.0.
  packed  structs with "lance-encoding:packed" / legacy "packed": one column per struct,
          2.0 PackedStruct ArrayEncoding, 2.1+ PackedStruct compressive encoding, and 2.2
          VariablePackedStruct (full-zip) for children that are not plain fixed-width.
          pylance 14 cannot write packed structs whose children hold nulls (any version).

Prints one JSON line per dataset, as gen_files.py does:
{"name", "version", "data_file", "dir", "expected", "rows"}.
"""
import json
import os
import sys

import lance
import pyarrow as pa

N = 3000


def col(gen, typ, null_every=0):
    return pa.array([None if null_every and i % null_every == 2 else gen(i) for i in range(N)], typ)


def fsst_table():
    meta = {"lance-encoding:compression": "fsst"}
    cols = [
        ("s", col(lambda i: "user-%05d@example.com/path/%d" % (i, i % 97), pa.string()), False),
        ("s_nulls", col(lambda i: "row %d of the fsst table, value %d" % (i, i * 7), pa.string(), 5), False),
        ("bin", col(lambda i: ("bin-%d-" % i).encode() * (i % 4), pa.binary(), 11), False),
        ("s_short", col(lambda i: "%x" % i, pa.string()), False),
    ]
    fields = [pa.field(name, a.type, metadata=meta) for name, a, _ in cols]
    return pa.table([a for _, a, _ in cols], schema=pa.schema(fields))


def packed_table(version):
    three = pa.struct([("a", pa.int32()), ("b", pa.float64()), ("c", pa.uint8())])
    wide = pa.struct([("x", pa.int64()), ("v", pa.list_(pa.float32(), 3)), ("d", pa.date32()),
                      ("h", pa.int16())])
    cols = {
        "p": (col(lambda i: {"a": i - 1500, "b": i / 4.0, "c": i % 251}, three), {"lance-encoding:packed": "true"}),
        "p_legacy": (col(lambda i: {"a": i * 3, "b": -float(i), "c": 7}, three), {"packed": "true"}),
        "p_wide": (col(lambda i: {"x": i * 1000003, "v": [float(i), 0.5, -1.0], "d": i, "h": i % 300 - 150},
                       wide), {"lance-encoding:packed": "true"}),
        "plain": (col(lambda i: {"a": i, "b": 1.0, "c": 1}, three), {}),
        # 2.1+ pack "p_legacy_false" and not "p_false" (either key "true", in any case). The
        # 2.0 writer does the opposite (it packs when "lance-encoding:packed" exists, unless
        # the legacy key says otherwise), and pylance 14 then cannot read its own 2.0 file,
        # so these two are 2.1+ only.
        "p_false": (col(lambda i: {"a": -i, "b": 2.5, "c": i % 9}, three), {"lance-encoding:packed": "false"}),
        "p_legacy_false": (col(lambda i: {"a": i % 17, "b": i * 0.25, "c": 3}, three),
                           {"packed": "false", "lance-encoding:packed": "TRUE"}),
        "n": (col(lambda i: i, pa.int64()), {}),
    }
    if version == "2.0":
        del cols["p_false"], cols["p_legacy_false"]
    if version == "2.1":
        del cols["p_wide"]  # pylance 14: "Variable packed struct encoding is not enabled" (FSL child)
    if version == "2.2":
        # A string child: VariablePackedStruct with a length-prefixed field (2.0 and 2.1
        # cannot pack variable-width children).
        var = pa.struct([("id", pa.int32()), ("name", pa.string()), ("w", pa.float32())])
        cols["p_var"] = (col(lambda i: {"id": i, "name": "n%d" % (i * 31) * (i % 4), "w": i / 8.0}, var),
                         {"lance-encoding:packed": "true"})
    if version != "2.0":
        # Struct-level nulls: 2.0 cannot store them.
        cols["p_nulls"] = (col(lambda i: {"a": i, "b": i * 2.0, "c": i % 3}, three, 4), {"lance-encoding:packed": "true"})
    fields = [pa.field(name, a.type, metadata=md) for name, (a, md) in cols.items()]
    return pa.table([a for a, _ in cols.values()], schema=pa.schema(fields))


def main():
    out = sys.argv[1]
    for v in ["2.0", "2.1", "2.2"]:
        write(out, "fsst", v, fsst_table())
        write(out, "packed", v, packed_table(v))


def write(out, name, v, tbl):
    d = os.path.join(out, name, v)
    ds = lance.write_dataset(tbl, d, data_storage_version=v, max_rows_per_file=tbl.num_rows)
    data = [f for f in os.listdir(os.path.join(d, "data")) if f.endswith(".lance")]
    assert len(data) == 1, data
    back = ds.to_table()
    exp = os.path.join(d, "expected.arrow")
    with pa.OSFile(exp, "wb") as sink:
        with pa.ipc.new_file(sink, back.schema) as w:
            w.write_table(back)
    print(json.dumps({"name": name, "version": v, "data_file": os.path.join("data", data[0]),
                      "dir": d, "expected": exp, "rows": back.num_rows}))


if __name__ == "__main__":
    main()
