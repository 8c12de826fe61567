#!/usr/bin/env python3
"""Generate Lance file-format fixtures with the pinned pylance.

    .venv/bin/python lanceformat/testdata/gen_file_fixtures.py OUTDIR
        [--versions 2.0,2.1,2.2] [--only REGEX] [--list]

For every (type x null pattern x data storage version) and a set of edge cases
it writes one single-fragment dataset plus the data as pylance itself reads it
back, and an index of everything:

    OUTDIR/index.json
    OUTDIR/v2_0/<case>/<case>.lance/...     the dataset (one data file)
    OUTDIR/v2_0/<case>/expected.arrow       ds.to_table() as an Arrow IPC *file*
    OUTDIR/v2_1/...  OUTDIR/v2_2/...

Each case directory is also a valid `flightd serve --root` folder (table
<case>).  Combinations pylance refuses to write (or read back) are listed under
"skipped" in index.json with the error.  See gen_file_fixtures.README.md for the
index format and the quirks seen so far.
"""

from __future__ import annotations

import argparse
import dataclasses
import decimal
import functools
import json
import pathlib
import random
import re
import shutil
import sys
import time
import zlib
from typing import Callable

import lance
import lance.file
import numpy as np
import pyarrow as pa

VERSIONS = ("2.0", "2.1", "2.2")
NULL_PATTERNS = ("none", "some", "all")
ROWS = 1000  # rows per type case; edge cases choose their own (<= 5000 except multi-page)
COLUMN = "v"  # the single column of every type case

# Names that appear in pylance's Debug dump of page encodings but say nothing
# about the encoding itself.
_ENCODING_NOISE = {"Some", "None", "ArrayEncoding", "CompressiveEncoding", "PageLayout",
                   "Buffer", "BufferCompression", "Compression", "Nullability", "NoNull", "SomeNull",
                   "Layer", "RepDefLayer"}
_ENCODING_NAME_RE = re.compile(r"\b([A-Z][A-Za-z0-9]+)\s*[({]")
_DICT_FIELD_RE = re.compile(r"\bdictionary: Some\(")
_LAYERS_RE = re.compile(r"\blayers: \[([^\]]*)\]")
_LARGE_CHUNK_RE = re.compile(r"\bhas_large_chunk: true\b")


# ---------------------------------------------------------------------------
# Value generators.  Each returns an Arrow array of n non-null values.
# ---------------------------------------------------------------------------

def _ints(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
    """n ints in [lo, hi]; the first rows hit the extremes."""
    fixed = [lo, hi, 0, 1, -1 if lo < 0 else 2, lo + 1, hi - 1]
    return (fixed + [rng.randint(lo, hi) for _ in range(n)])[:n]


def int_values(bits: int, signed: bool) -> Callable[[random.Random, int], pa.Array]:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    typ = getattr(pa, f"{'' if signed else 'u'}int{bits}")()
    return lambda rng, n: pa.array(_ints(rng, n, lo, hi), typ)


def _floats(rng: random.Random, n: int, scale: float) -> list[float]:
    fixed = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.5]
    return (fixed + [rng.uniform(-scale, scale) for _ in range(n)])[:n]


def float_values(np_dtype, scale: float) -> Callable[[random.Random, int], pa.Array]:
    return lambda rng, n: pa.array(np.array(_floats(rng, n, scale), dtype=np_dtype))


def bool_values(rng, n):
    return pa.array([rng.random() < 0.5 for _ in range(n)], pa.bool_())


_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-äßé€中😀"


def _string(rng: random.Random, max_len: int = 24) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, max_len)))


def string_values(typ: pa.DataType):
    return lambda rng, n: pa.array([""] + [_string(rng) for _ in range(n - 1)], typ)[:n]


def binary_values(typ: pa.DataType):
    def make(rng, n):
        vals = [b"", b"\x00"] + [bytes(rng.randrange(256) for _ in range(rng.randint(0, 24))) for _ in range(n)]
        return pa.array(vals[:n], typ)
    return make


def cast_ints(storage: pa.DataType, typ: pa.DataType, lo: int, hi: int, step: int = 1):
    """Integers in [lo, hi] (multiples of step) reinterpreted as a temporal type."""
    return lambda rng, n: pa.array([v * step for v in _ints(rng, n, lo, hi)], storage).cast(typ)


def date64_values(rng, n):
    return pa.array([d * 86_400_000 for d in _ints(rng, n, -25_000, 50_000)], pa.int64()).cast(pa.date64())


def timestamp_values(unit: str, tz: str | None):
    per_second = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    lo, hi = -2_000_000_000 * per_second, 4_000_000_000 * per_second  # 1906 .. 2096
    return lambda rng, n: pa.array(_ints(rng, n, lo, hi), pa.int64()).cast(pa.timestamp(unit, tz))


def decimal_values(precision: int, scale: int):
    def make(rng, n):
        bound = 10 ** precision - 1
        vals = [decimal.Decimal(rng.randint(-bound, bound)).scaleb(-scale) for _ in range(n)]
        return pa.array(vals, pa.decimal128(precision, scale))
    return make


def fsl_values(child: Callable[[random.Random, int], pa.Array], dim: int):
    return lambda rng, n: pa.FixedSizeListArray.from_arrays(child(rng, n * dim), dim)


def list_values(child: Callable[[random.Random, int], pa.Array], large: bool = False, max_len: int = 6):
    def make(rng, n):
        lengths = [rng.randint(0, max_len) for _ in range(n)]
        offsets = [0]
        for length in lengths:
            offsets.append(offsets[-1] + length)
        items = child(rng, offsets[-1])
        cls = pa.LargeListArray if large else pa.ListArray
        return cls.from_arrays(pa.array(offsets, pa.int64() if large else pa.int32()), items)
    return make


def struct_xy(rng, n):
    return pa.StructArray.from_arrays([int_values(32, True)(rng, n), string_values(pa.utf8())(rng, n)],
                                      names=["x", "y"])


def nested_struct(rng, n):
    inner = pa.StructArray.from_arrays([string_values(pa.utf8())(rng, n), float_values(np.float64, 1e3)(rng, n)],
                                       names=["name", "score"])
    tags = list_values(int_values(16, True), max_len=3)(rng, n)
    return pa.StructArray.from_arrays([int_values(32, True)(rng, n), inner, tags], names=["id", "inner", "tags"])


def dictionary_values(rng, n):
    words = [f"word_{i:02d}" for i in range(20)]
    return pa.array([rng.choice(words) for _ in range(n)], pa.dictionary(pa.int32(), pa.utf8()))


@dataclasses.dataclass(frozen=True)
class TypeCase:
    """One Arrow type, generated with every null pattern."""

    name: str
    make: Callable[[random.Random, int], pa.Array]


TYPE_CASES = [
    *(TypeCase(f"int{b}", int_values(b, True)) for b in (8, 16, 32, 64)),
    *(TypeCase(f"uint{b}", int_values(b, False)) for b in (8, 16, 32, 64)),
    TypeCase("float16", float_values(np.float16, 6e4)),
    TypeCase("float32", float_values(np.float32, 1e30)),
    TypeCase("float64", float_values(np.float64, 1e300)),
    TypeCase("bool", bool_values),
    TypeCase("utf8", string_values(pa.utf8())),
    TypeCase("large_utf8", string_values(pa.large_utf8())),
    TypeCase("binary", binary_values(pa.binary())),
    TypeCase("large_binary", binary_values(pa.large_binary())),
    TypeCase("date32", cast_ints(pa.int32(), pa.date32(), -25_000, 50_000)),
    TypeCase("date64", date64_values),
    TypeCase("time32_s", cast_ints(pa.int32(), pa.time32("s"), 0, 86_399)),
    TypeCase("time32_ms", cast_ints(pa.int32(), pa.time32("ms"), 0, 86_399_999)),
    TypeCase("time64_us", cast_ints(pa.int64(), pa.time64("us"), 0, 86_399_999_999)),
    TypeCase("time64_ns", cast_ints(pa.int64(), pa.time64("ns"), 0, 86_399_999_999, step=1000)),
    *(TypeCase(f"timestamp_{u}", timestamp_values(u, None)) for u in ("s", "ms", "us", "ns")),
    *(TypeCase(f"timestamp_{u}_utc", timestamp_values(u, "UTC")) for u in ("s", "ms", "us", "ns")),
    TypeCase("timestamp_us_tz_berlin", timestamp_values("us", "Europe/Berlin")),
    TypeCase("decimal128_20_4", decimal_values(20, 4)),
    TypeCase("decimal128_38_10", decimal_values(38, 10)),
    TypeCase("fsl_float32_8", fsl_values(float_values(np.float32, 1.0), 8)),
    TypeCase("fsl_float16_4", fsl_values(float_values(np.float16, 1.0), 4)),
    TypeCase("fsl_int8_16", fsl_values(int_values(8, True), 16)),
    TypeCase("list_int32", list_values(int_values(32, True))),
    TypeCase("large_list_utf8", list_values(string_values(pa.utf8()), large=True)),
    TypeCase("list_struct", list_values(struct_xy)),
    TypeCase("struct_nested", nested_struct),
    TypeCase("dictionary_int32_utf8", dictionary_values),
]


def with_nulls(values: pa.Array, pattern: str) -> pa.Array:
    """Apply a null pattern: none, some (every 3rd row, starting at row 2), all.

    Nulls come from take() with null indices, which works for every type
    (structs get null children underneath, lists get empty null slots).
    """
    if pattern == "none":
        return values
    n = len(values)
    if pattern == "some":
        idx = [None if i % 3 == 2 else i for i in range(n)]
    elif pattern == "all":
        idx = [None] * n
    else:
        raise ValueError(f"unknown null pattern {pattern!r}")
    return values.take(pa.array(idx, pa.int32()))


# ---------------------------------------------------------------------------
# Edge cases: whole tables, with write options and the encodings they aim at.
# ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class EdgeCase:
    """A hand-built table aimed at one reader corner."""

    name: str
    make: Callable[[random.Random], pa.Table]
    note: str
    write_options: dict = dataclasses.field(default_factory=dict)
    # Feed the writer batches of this many rows: 2.1+ writers cut pages from the
    # batches they accumulate, so one big batch gives one page however large.
    batch_rows: int | None = None
    # Encoding names the case aims at, per version prefix ("2.0" / "2.1+"); informational.
    aims_at: dict = dataclasses.field(default_factory=dict)


def _edge_empty_lists(rng):
    vals = [[] for _ in range(100)] + [[] if i % 3 else [i, i + 1][: i % 3 + 1] for i in range(900)]
    return pa.table({COLUMN: pa.array(vals, pa.list_(pa.int32()))})


def _edge_null_vs_empty_lists(rng):
    cycle = [None, [], [None], [1, None, 2], [3], None, None, []]
    return pa.table({COLUMN: pa.array([cycle[i % len(cycle)] for i in range(1000)], pa.list_(pa.int32()))})


def _edge_null_struct_children(rng):
    n = 1000
    x = pa.array(range(n), pa.int32())
    y = pa.array([f"child_{i}" for i in range(n)], pa.utf8())
    mask = pa.array([i % 3 == 0 for i in range(n)])
    return pa.table({COLUMN: pa.StructArray.from_arrays([x, y], names=["x", "y"], mask=mask)})


def _edge_one_row(rng):
    return pa.table({"i": pa.array([7], pa.int64()), "s": pa.array(["only"], pa.utf8()),
                     "l": pa.array([[1, 2]], pa.list_(pa.int32()))})


def _edge_tiny_pages(rng):
    n = 64
    return pa.table({"i": pa.array(range(n), pa.int64()),
                     "s": pa.array([f"row{i}" for i in range(n)], pa.utf8()),
                     "l": pa.array([None if i % 5 == 4 else list(range(i % 3)) for i in range(n)],
                                   pa.list_(pa.int32()))})


def _edge_multi_page(rng):
    n = 300_000
    return pa.table({"i": pa.array(np.arange(n, dtype=np.int64) * 7919 % 1_000_003),
                     "s": pa.array([f"value-{i * 2654435761 % 4294967296:010d}" for i in range(n)], pa.utf8()),
                     "n": pa.array([None if i % 5 == 0 else i for i in range(n)], pa.int32())})


def _edge_strings_low_cardinality(rng):
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    return pa.table({COLUMN: pa.array([None if i % 97 == 0 else rng.choice(words) for i in range(5000)])})


def _edge_strings_fsst(rng):
    vals = [f"https://example.com/catalog/item/{rng.randrange(10**9)}?ref=newsletter&lang=en" for _ in range(5000)]
    return pa.table({COLUMN: pa.array(vals, pa.utf8())})


def _edge_huge_strings(rng):
    block = "lorem ipsum dolor sit amet " * 1600  # ~43 KiB each
    return pa.table({COLUMN: pa.array([f"{i}:{block}" for i in range(8)], pa.utf8())})


def _edge_small_range_ints(rng):
    n = 5000
    return pa.table({"small": pa.array([rng.randrange(16) for _ in range(n)], pa.int64()),
                     "offset": pa.array([1_000_000 + rng.randrange(64) for _ in range(n)], pa.int32()),
                     "small_u8": pa.array([rng.randrange(4) for _ in range(n)], pa.uint8())})


def _edge_runs(rng):
    vals = []
    while len(vals) < 5000:
        vals.extend([rng.randrange(1000)] * rng.randint(20, 100))
    return pa.table({COLUMN: pa.array(vals[:5000], pa.int32())})


def _edge_constant(rng):
    n = 5000
    return pa.table({"i": pa.array([42] * n, pa.int64()), "s": pa.array(["same"] * n, pa.utf8()),
                     "f": pa.array([1.5] * n, pa.float64()), "null_i": pa.nulls(n, pa.int32()),
                     "null_s": pa.nulls(n, pa.utf8())})


def _edge_fsl_item_nulls(rng):
    n = 500
    items = [None if i % 7 == 3 else float(i) for i in range(n * 8)]
    fsl = pa.FixedSizeListArray.from_arrays(pa.array(items, pa.float32()), 8)
    return pa.table({COLUMN: with_nulls(fsl, "some")})


def _edge_list_of_lists(rng):
    vals = [None if i % 11 == 0 else [[j] * (j % 3) for j in range(i % 4)] for i in range(1000)]
    return pa.table({COLUMN: pa.array(vals, pa.list_(pa.list_(pa.int32())))})


EDGE_CASES = [
    EdgeCase("empty_lists", _edge_empty_lists, "list<int32>: runs of empty lists, no nulls"),
    EdgeCase("null_vs_empty_lists", _edge_null_vs_empty_lists,
             "list<int32>: null list, empty list, list of one null item, mixed items"),
    EdgeCase("null_struct_nonnull_children", _edge_null_struct_children,
             "struct<x,y> null every 3rd row while the children hold values underneath"),
    EdgeCase("one_row", _edge_one_row, "a single row, three columns"),
    EdgeCase("tiny_pages", _edge_tiny_pages, "64 rows fed one row per batch with 1-byte page/cache limits: "
             "one-row pages", write_options={"max_page_bytes": 1, "data_cache_bytes": 1}, batch_rows=1),
    EdgeCase("multi_page", _edge_multi_page, "300k rows fed in 4096-row batches, default page limits: "
             "several pages per column", batch_rows=4096),
    EdgeCase("strings_low_cardinality", _edge_strings_low_cardinality, "5000 strings from 8 words (dictionary)",
             aims_at={"2.0": ["Dictionary"], "2.1+": ["Dictionary"]}),
    EdgeCase("strings_fsst", _edge_strings_fsst, "5000 distinct URL-like strings, > 32 KiB (FSST in 2.1+)",
             aims_at={"2.1+": ["Fsst"]}),
    EdgeCase("huge_strings", _edge_huge_strings, "8 strings of ~43 KiB (full-zip / per-value compression in 2.1+)",
             aims_at={"2.1+": ["FullZipLayout"]}),
    EdgeCase("small_range_ints", _edge_small_range_ints, "ints in tiny ranges (bit-packing)",
             aims_at={"2.1+": ["InlineBitpacking"]}),
    EdgeCase("runs", _edge_runs, "int32 in runs of 20..100 equal values (RLE in 2.1+)", aims_at={"2.1+": ["Rle"]}),
    EdgeCase("constant", _edge_constant, "constant int/string/float columns and all-null columns",
             aims_at={"2.2": ["ConstantLayout"]}),
    EdgeCase("fsl_item_nulls", _edge_fsl_item_nulls, "fixed_size_list<float32>[8] with null items and null lists"),
    EdgeCase("list_of_lists", _edge_list_of_lists, "list<list<int32>> with null outer lists and empty inner lists"),
]


# ---------------------------------------------------------------------------
# Writing and describing one dataset.
# ---------------------------------------------------------------------------

def version_tag(version: str) -> str:
    """Directory tag for a data storage version: 2.1 -> v2_1."""
    return "v" + version.replace(".", "_")


def encoding_names(debug_text: str) -> set[str]:
    """Encoding/layout names in pylance's Debug dump of one page's encoding.

    2.1+ mini-block dictionaries show up as a `dictionary: Some(...)` field, so
    they are reported as "Dictionary"; rep/def layers as "layer:<Name>".
    """
    names = {m for m in _ENCODING_NAME_RE.findall(debug_text) if m not in _ENCODING_NOISE}
    if _DICT_FIELD_RE.search(debug_text):
        names.add("Dictionary")
    for block in _LAYERS_RE.findall(debug_text):
        names |= {f"layer:{layer}" for layer in re.findall(r"[A-Z][A-Za-z]+", block)}
    return names


def describe_files(ds: lance.LanceDataset, outdir: pathlib.Path, dataset_dir: pathlib.Path) -> list[dict]:
    """Data files of the dataset with their footer version and per-column page info."""
    files = []
    for frag in ds.get_fragments():
        for df in frag.data_files():
            path = dataset_dir / "data" / df.path
            meta = lance.file.LanceFileReader(str(path)).metadata()
            columns = []
            for col in meta.columns:
                names, large_chunk = set(), False
                for page in col.pages:
                    text = str(page.encoding)
                    names |= encoding_names(text)
                    large_chunk = large_chunk or bool(_LARGE_CHUNK_RE.search(text))
                column = {"pages": len(col.pages), "encodings": sorted(names)}
                if large_chunk:
                    column["has_large_chunk"] = True
                columns.append(column)
            files.append({
                "path": str(path.relative_to(outdir)),
                "fragment_id": frag.fragment_id,
                "fields": list(df.fields),
                "column_indices": list(df.column_indices),
                "file_version": f"{meta.major_version}.{meta.minor_version}",
                "num_rows": meta.num_rows,
                "columns": columns,
            })
    return files


def roundtrip(written: pa.Table, read: pa.Table) -> str:
    """How pylance's read-back compares with what was written.

    "identical": Table.equals.  "same values": same schema and same Python
    values with NaN == NaN and -0.0 != 0.0 (Table.equals treats NaN as unequal;
    dictionaries may come back with a different dictionary).  Otherwise
    "differs: ..." says where.
    """
    if read.equals(written):
        return "identical"
    if not read.schema.equals(written.schema, check_metadata=False):
        return f"differs: schema: wrote {written.schema.types}, read {read.schema.types}"
    for name in written.column_names:
        w, r = written.column(name), read.column(name)
        if w.null_count != r.null_count:
            return f"differs: column {name}: null count {w.null_count} written, {r.null_count} read"
        if repr(w.to_pylist()) != repr(r.to_pylist()):
            return f"differs: column {name}: values"
    return "same values"


def write_case(outdir: pathlib.Path, version: str, case_name: str, table: pa.Table,
               write_options: dict, batch_rows: int | None = None) -> dict:
    """Write one dataset + expected.arrow; returns its index entry (raises on refusal)."""
    case_dir = outdir / version_tag(version) / case_name
    dataset_dir = case_dir / f"{case_name}.lance"
    case_dir.mkdir(parents=True)
    try:
        data = table
        if batch_rows:
            data = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=batch_rows))
        lance.write_dataset(data, str(dataset_dir), data_storage_version=version, **write_options)
    except Exception as exc:  # pylance refuses: record, leave nothing behind
        shutil.rmtree(case_dir)
        raise Refused(f"write: {type(exc).__name__}: {_first_line(exc)}") from exc
    try:
        ds = lance.dataset(str(dataset_dir))
        read = ds.to_table()
    except Exception as exc:
        shutil.rmtree(case_dir)
        raise Refused(f"read back: {type(exc).__name__}: {_first_line(exc)}") from exc
    expected = case_dir / "expected.arrow"
    with pa.OSFile(str(expected), "wb") as sink, pa.ipc.new_file(sink, read.schema) as writer:
        writer.write_table(read)
    return {
        "version": version,
        "data_storage_version": ds.data_storage_version,
        "rows": read.num_rows,
        "schema": [{"name": f.name, "arrow_type": str(f.type)} for f in table.schema],
        "dataset_dir": str(dataset_dir.relative_to(outdir)),
        "expected": str(expected.relative_to(outdir)),
        "data_files": describe_files(ds, outdir, dataset_dir),
        "roundtrip": roundtrip(table, read),
    }


class Refused(Exception):
    """pylance would not write (or read back) a combination."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:400] if text else repr(exc)


def case_seed(name: str) -> int:
    """Stable per-case seed, so every version gets identical input rows."""
    return zlib.crc32(name.encode())


@dataclasses.dataclass(frozen=True)
class Planned:
    """One dataset to write: a case at one data storage version."""

    version: str
    name: str
    null_pattern: str
    build: Callable[[], pa.Table]
    note: str = ""
    write_options: dict = dataclasses.field(default_factory=dict)
    batch_rows: int | None = None
    aims_at: dict = dataclasses.field(default_factory=dict)


def _type_case_table(tc: TypeCase, pattern: str) -> pa.Table:
    arr = with_nulls(tc.make(random.Random(case_seed(tc.name)), ROWS), pattern)
    return pa.table({COLUMN: arr})


def planned_cases(versions, only: re.Pattern | None):
    """Yield a Planned for every case (filtered by ``only``) at every version."""
    for version in versions:
        for tc in TYPE_CASES:
            for pattern in NULL_PATTERNS:
                name = f"{tc.name}_{pattern}"
                if not only or only.search(name):
                    yield Planned(version, name, pattern, functools.partial(_type_case_table, tc, pattern))
        for ec in EDGE_CASES:
            name = f"edge_{ec.name}"
            if not only or only.search(name):
                build = functools.partial(ec.make, random.Random(case_seed(ec.name)))
                yield Planned(version, name, "edge", build, ec.note, ec.write_options, ec.batch_rows, ec.aims_at)


def aimed_encodings(aims_at: dict, version: str) -> list[str]:
    """The encodings an edge case aims at for this version."""
    if version in aims_at:
        return aims_at[version]
    if version != "2.0" and "2.1+" in aims_at:
        return aims_at["2.1+"]
    return []


def _arrow_type(table: pa.Table) -> str:
    if table.num_columns == 1:
        return str(table.schema.field(0).type)
    return "{" + ", ".join(f"{f.name}: {f.type}" for f in table.schema) + "}"


def generate(outdir: pathlib.Path, versions, only) -> dict:
    """Write every planned case; returns the index document."""
    cases, skipped, misses = [], [], []
    for plan in planned_cases(versions, only):
        table = plan.build()
        base = {"name": f"{version_tag(plan.version)}/{plan.name}", "case": plan.name,
                "null_pattern": plan.null_pattern, "arrow_type": _arrow_type(table)}
        if plan.note:
            base["note"] = plan.note
        if plan.write_options or plan.batch_rows:
            base["write_options"] = {**plan.write_options, **({"batch_rows": plan.batch_rows} if plan.batch_rows else {})}
        try:
            entry = write_case(outdir, plan.version, plan.name, table, plan.write_options, plan.batch_rows)
        except Refused as exc:
            skipped.append({**base, "version": plan.version, "reason": str(exc)})
            continue
        wanted = aimed_encodings(plan.aims_at, plan.version)
        if wanted:
            seen = {e for f in entry["data_files"] for c in f["columns"] for e in c["encodings"]}
            entry["aims_at"] = wanted
            entry["aim_hit"] = all(w in seen for w in wanted)
            if not entry["aim_hit"]:
                misses.append(f"{base['name']}: wanted {wanted}, saw {sorted(seen)}")
        cases.append({**base, **entry})
    return {
        "generator": "lanceformat/testdata/gen_file_fixtures.py",
        "pylance": lance.__version__,
        "pyarrow": pa.__version__,
        "column": COLUMN,
        "rows_per_type_case": ROWS,
        "null_patterns": {"none": "no nulls", "some": "row i is null when i % 3 == 2",
                          "all": "every row null", "edge": "see note"},
        "cases": cases,
        "skipped": skipped,
        "aim_misses": misses,
    }


def prepare_outdir(outdir: pathlib.Path) -> None:
    """OUTDIR must be empty or hold only a previous run's output (which is replaced)."""
    outdir.mkdir(parents=True, exist_ok=True)
    ours = {version_tag(v) for v in VERSIONS} | {"index.json"}
    foreign = [p.name for p in outdir.iterdir() if p.name not in ours]
    if foreign:
        raise SystemExit(f"gen_file_fixtures: {outdir} holds files this script did not write: {foreign[:5]}")
    for p in outdir.iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("--versions", default=",".join(VERSIONS),
                        help=f"comma-separated data storage versions (default {','.join(VERSIONS)})")
    parser.add_argument("--only", help="regex on case names (e.g. '^int|^edge_runs')")
    parser.add_argument("--list", action="store_true", help="print planned case names and exit")
    args = parser.parse_args(argv)
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    bad = [v for v in versions if v not in VERSIONS]
    if bad:
        parser.error(f"unknown versions {bad}; choose from {VERSIONS}")
    only = re.compile(args.only) if args.only else None
    if args.list:
        for plan in planned_cases(versions, only):
            print(f"{version_tag(plan.version)}/{plan.name}")
        return 0

    start = time.monotonic()
    prepare_outdir(args.outdir)
    index = generate(args.outdir, versions, only)
    (args.outdir / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    print(f"gen_file_fixtures: {len(index['cases'])} cases, {len(index['skipped'])} skipped, "
          f"{len(index['aim_misses'])} aim misses, {time.monotonic() - start:.1f}s -> {args.outdir}")
    for s in index["skipped"]:
        print(f"  skipped {s['name']}: {s['reason']}")
    for m in index["aim_misses"]:
        print(f"  aim miss {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
