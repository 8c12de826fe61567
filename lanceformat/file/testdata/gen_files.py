"""Writes small Lance datasets in every file format version for the Go reader tests.

Usage: gen_files.py OUTDIR

For each table NAME and version V in 2.0, 2.1, 2.2 (2.1+ only for "required", 2.2 only for
"maps") it writes OUTDIR/NAME/V/ (a Lance
dataset with one data file) and OUTDIR/NAME/V/expected.arrow (the table read back by
pylance, as an Arrow IPC file), and prints one JSON line per dataset:
{"name", "version", "data_file", "dir", "expected", "rows"}.
"""
import datetime
import decimal
import json
import os
import random
import sys

import lance
import numpy as np
import pyarrow as pa

N = 5000
# Columns 2.0 cannot store (null structs).
V21_ONLY = {"st_nullable"}


def column(gen, typ, null_every=0):
    vals = []
    for i in range(N):
        if null_every and i % null_every == 3:
            vals.append(None)
        else:
            vals.append(gen(i))
    return pa.array(vals, typ)


def table():
    rnd = random.Random(42)
    words = ["alpha", "beta", "gamma", "delta", "", "epsilon-long-word", "z"]
    base_ts = datetime.datetime(2024, 1, 1)
    cols = {
        "i8": column(lambda i: (i % 200) - 100, pa.int8(), 7),
        "i16": column(lambda i: i * 7 - 3000, pa.int16()),
        "i32": column(lambda i: rnd.randint(-2**31, 2**31 - 1), pa.int32(), 5),
        "i64": column(lambda i: i * 1000003, pa.int64()),
        "i64_small": column(lambda i: i % 3, pa.int64(), 11),
        "u8": column(lambda i: i % 256, pa.uint8()),
        "u16": column(lambda i: i % 60000, pa.uint16(), 13),
        "u32": column(lambda i: i * 17, pa.uint32()),
        "u64": column(lambda i: 2**63 + i, pa.uint64(), 9),
        "f32": column(lambda i: i / 3.0, pa.float32(), 6),
        "f64": column(lambda i: rnd.random() * 1e6, pa.float64()),
        "b": column(lambda i: i % 3 == 0, pa.bool_(), 4),
        "b_nonull": column(lambda i: i % 5 == 1, pa.bool_()),
        "s": column(lambda i: words[i % len(words)] + str(i % 13), pa.string(), 8),
        "s_dict": column(lambda i: words[i % 3], pa.string(), 10),
        "s_long": column(lambda i: ("x%d-" % i) * (i % 120), pa.string(), 17),
        "ls": column(lambda i: "large-" + str(i), pa.large_string(), 9),
        "bin": column(lambda i: bytes([i % 256, (i * 7) % 256]) * (i % 4), pa.binary(), 12),
        "lbin": column(lambda i: bytes([i % 251]) * (i % 5), pa.large_binary()),
        "d32": column(lambda i: datetime.date(2020, 1, 1) + datetime.timedelta(days=i), pa.date32(), 7),
        "ts_us": column(lambda i: base_ts + datetime.timedelta(seconds=i * 37), pa.timestamp("us"), 9),
        "ts_ns_utc": column(lambda i: base_ts + datetime.timedelta(microseconds=i), pa.timestamp("ns", tz="UTC")),
        "t64": column(lambda i: datetime.time(i % 24, i % 60, i % 60), pa.time64("us"), 5),
        "dur": column(lambda i: datetime.timedelta(milliseconds=i), pa.duration("ms")),
        "dec": column(lambda i: decimal.Decimal(i * 3 - 700) / 100, pa.decimal128(10, 2), 6),
        "fsb": column(lambda i: bytes([i % 256] * 4), pa.binary(4), 8),
        "vec": column(lambda i: [float(i), float(-i), i / 2.0, 1.0], pa.list_(pa.float32(), 4), 10),
        "vec_wide": column(lambda i: [float(i + k) for k in range(96)], pa.list_(pa.float32(), 96)),
        "l": column(lambda i: None if i % 9 == 1 else [j for j in range(i % 4)], pa.list_(pa.int32())),
        "ll": column(lambda i: ["w%d" % j for j in range(i % 3)], pa.large_list(pa.string()), 7),
        "st": column(lambda i: {"x": i, "y": None if i % 4 == 0 else "y%d" % i},
                     pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "all_null": pa.nulls(N, pa.int32()),
        "const": column(lambda i: 42, pa.int64()),
        "const_nulls": column(lambda i: 7, pa.int64(), 3),
        "const_s": column(lambda i: "hello", pa.string()),
        "const_s_nulls": column(lambda i: "hello", pa.string(), 2),
        "null_s": pa.nulls(N, pa.string()),
        "null_list": pa.array([None] * N, pa.list_(pa.int32())),
        "empty_or_null_list": column(lambda i: [] if i % 2 else None, pa.list_(pa.int32())),
        "f16": pa.array(np.arange(N, dtype=np.float16) / 8),
        "dec256": column(lambda i: decimal.Decimal(i) * 1000003, pa.decimal256(40, 5), 9),
        "d64": column(lambda i: datetime.datetime(2021, 1, 1) + datetime.timedelta(days=i), pa.date64()),
        "t32": column(lambda i: datetime.time(0, i % 60, i % 60), pa.time32("ms"), 4),
        "ts_s_tz": column(lambda i: base_ts + datetime.timedelta(hours=i), pa.timestamp("s", tz="+05:30")),
        "dict_many": column(lambda i: "value-%03d" % (i % 150), pa.string(), 19),
        "vec_item_nulls": column(lambda i: [None if (i + k) % 5 == 0 else float(k) for k in range(4)],
                                 pa.list_(pa.float32(), 4), 6),
        "vec_wide_nulls": column(lambda i: [float(i * k) for k in range(80)], pa.list_(pa.float64(), 80), 4),
        "st_nullable": column(lambda i: None if i % 6 == 2 else {"a": None if i % 4 == 1 else i, "b": "b%d" % i},
                              pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "list_st": column(lambda i: [{"p": j, "q": None if j == 1 else "q%d" % j} for j in range(i % 4)],
                          pa.list_(pa.struct([("p", pa.int32()), ("q", pa.string())])), 5),
        "st_list": column(lambda i: {"tags": None if i % 7 == 0 else ["t%d" % j for j in range(i % 3)], "n": i},
                          pa.struct([("tags", pa.list_(pa.string())), ("n", pa.int64())])),
        "list_list": column(lambda i: [None if j == 2 else [i + k for k in range(j)] for j in range(i % 4)],
                            pa.list_(pa.list_(pa.int64())), 8),
        "zstd_f64": column(lambda i: float(i % 100) * 1.5, pa.float64(), 9),
        "lz4_s": column(lambda i: "compress me %d" % (i % 50), pa.string(), 9),
        "bss_f32": column(lambda i: rnd.random(), pa.float32()),
        "list_long_s": column(lambda i: ["long-%d-" % i * (20 + j) for j in range(i % 3)], pa.list_(pa.string()), 10),
    }
    return pa.table(cols)


def pages_table():
    """A list column long enough to span several 2.1+ pages (multi-page 2.0 files and
    single-value pages are covered by lanceformat/testdata/gen_file_fixtures.py)."""
    n = 150_000
    rng = np.random.default_rng(7)
    return pa.table({
        "r": pa.array(rng.integers(-2**62, 2**62, n)),
        "l": pa.array([[i] * (i % 5) if i % 11 else None for i in range(n)], pa.list_(pa.int64())),
    })


def required_table():
    """Non-nullable columns shaped like TPC-H lineitem's (bit-packed keys, dictionary
    decimals and short and long strings, FSST comments, dates, vectors): 2.1+ pages
    without levels, which a range read decodes straight into its output."""
    rnd = random.Random(7)
    modes = ["AIR", "RAIL", "DELIVER IN PERSON", "TAKE BACK RETURN", "NONE", "REG AIR", "x"]
    words = ["carefully", "final", "deposits", "sleep", "quickly", "bold", "ideas", "haggle"]
    cols = {
        "k": (pa.array([i * 4 + (i % 3) for i in range(N)], pa.int64())),
        "k32": (pa.array([(i * 7) % 1000 for i in range(N)], pa.int32())),
        "qty": (pa.array([decimal.Decimal(i % 50 + 1) for i in range(N)], pa.decimal128(15, 2))),
        "price": (pa.array([decimal.Decimal(rnd.randint(90000, 10000000)) / 100 for i in range(N)],
                           pa.decimal128(15, 2))),
        "flag": (pa.array(["ARN"[i % 3] for i in range(N)], pa.string())),
        "mode": (pa.array([modes[(i * 5) % len(modes)] for i in range(N)], pa.string())),
        "comment": (pa.array([" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 6))) for _ in range(N)],
                             pa.string())),
        "day": (pa.array([datetime.date(1992, 1, 1) + datetime.timedelta(days=i % 2500) for i in range(N)],
                         pa.date32())),
        "vec": (pa.array([[float(i + k) for k in range(8)] for i in range(N)], pa.list_(pa.float32(), 8))),
    }
    schema = pa.schema([pa.field(name, a.type, nullable=False) for name, a in cols.items()])
    return pa.table(list(cols.values()), schema=schema)


def map_value(i):
    if i % 5 == 0:
        return None
    if i % 5 == 1:
        return []
    return [("k%d" % j, None if (i + j) % 7 == 0 else i * j) for j in range(i % 4)]


def maps_table():
    """Map columns (Lance 2.2+ only): null, empty and non-empty maps, null values, maps in
    structs and lists, lists, structs and long strings as values, a non-nullable map."""
    cols = {
        "m": pa.array([map_value(i) for i in range(N)], pa.map_(pa.string(), pa.int32())),
        "st_map": pa.array([{"id": i, "tags": None if i % 3 == 0 else [(i, "t%d" % i), (-i, "")][: 1 + i % 2]}
                            for i in range(N)],
                           pa.struct([("id", pa.int32()), ("tags", pa.map_(pa.int64(), pa.string()))])),
        "list_map": pa.array([None if i % 7 == 0 else [[("a", float(i))], [], None][: i % 4] for i in range(N)],
                             pa.list_(pa.map_(pa.string(), pa.float64()))),
        "map_list": pa.array([[("x%d" % (i % 3), None if i % 4 == 0 else list(range(i % 3)))] for i in range(N)],
                             pa.map_(pa.string(), pa.list_(pa.int32()))),
        "map_long": pa.array([None if i % 9 == 0 else [("k", "long-%d-" % i * (i % 40))] for i in range(N)],
                             pa.map_(pa.string(), pa.large_string())),
        "map_struct": pa.array([[("s%d" % j, None if (i + j) % 6 == 0 else {"a": i + j, "b": "b%d" % j})
                                 for j in range(i % 3)] for i in range(N)],
                               pa.map_(pa.string(), pa.struct([("a", pa.int32()), ("b", pa.string())]))),
        "m_req": pa.array([[(i * 10 + j, float(j)) for j in range(i % 3)] for i in range(N)],
                          pa.map_(pa.int64(), pa.float64())),
    }
    schema = pa.schema([pa.field(name, a.type, nullable=name != "m_req") for name, a in cols.items()])
    return pa.table(list(cols.values()), schema=schema)


def dicts_table():
    """Arrow dictionary columns, including value types arrow-go's dictionary builder lacks
    (large_string, large_binary)."""
    def dict_col(vals, typ, index=pa.int32()):
        return pa.array(vals, typ).dictionary_encode().cast(pa.dictionary(index, typ))
    return pa.table({
        "dls": dict_col(["v%d" % (i % 10) if i % 6 else None for i in range(N)], pa.large_string()),
        "dlb": dict_col([b"b%d" % (i % 300) for i in range(N)], pa.large_binary()),
        "dlb_long": dict_col([None if i % 5 == 0 else b"x" * (40 + i % 7) for i in range(N)], pa.large_binary()),
        "ds8": dict_col(["w%d" % (i % 5) if i % 4 else None for i in range(N)], pa.string(), pa.int8()),
    })


def with_metadata(tbl):
    """Asks for general compression and byte-stream split on some columns."""
    fields = []
    for f in tbl.schema:
        if f.name == "zstd_f64":
            f = f.with_metadata({"lance-encoding:compression": "zstd"})
        elif f.name == "lz4_s":
            f = f.with_metadata({"lance-encoding:compression": "lz4"})
        elif f.name == "bss_f32":
            f = f.with_metadata({"lance-encoding:compression": "zstd", "lance-encoding:bss": "on"})
        fields.append(f)
    return tbl.cast(pa.schema(fields))


def main():
    out = sys.argv[1]
    tables = {"main": with_metadata(table()), "pages": pages_table(), "required": required_table(),
              "maps": maps_table(), "dicts": dicts_table()}
    for name, tbl in tables.items():
        for v in ["2.0", "2.1", "2.2"]:
            if name == "required" and v == "2.0":
                continue  # levels-free mini-block pages are 2.1+
            if name == "maps" and v != "2.2":
                continue  # Lance writes maps in 2.2+ only
            write(out, name, v, tbl)


def write(out, name, v, tbl):
    d = os.path.join(out, name, v)
    t = tbl.drop_columns([c for c in V21_ONLY if c in tbl.column_names]) if v == "2.0" else tbl
    ds = lance.write_dataset(t, d, data_storage_version=v, max_rows_per_file=t.num_rows)
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
