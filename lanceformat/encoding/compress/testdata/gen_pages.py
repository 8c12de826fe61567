"""Write single-column Lance files (2.1 and 2.2) with pylance's LanceFileWriter
and describe their pages for the Go differential test (pages_pylance_test.go).

Usage: gen_pages.py OUTDIR

2.0 files are written only for the general-compression string cases (their
bytes buffer is zstd/lz4 compressed with the same framing as 2.1).

OUTDIR/cases.json is a list of cases:
  {name, version, file, pages: [{buffers: [[pos, size]...], encoding: TREE}],
   expected: {kind: "int"|"float"|"string", bits, values: [...] (null = null)}}
TREE is the page's PageLayout, parsed from its Rust Debug text into JSON:
structs become objects (with "_type"), enum wrappers {"Variant": value},
Some(x) -> x, None -> null, byte strings -> list of ints.
Floats are given as their IEEE bit patterns (unsigned ints).
"""
import json
import os
import re
import sys

import numpy as np
import pyarrow as pa
from lance.file import LanceFileReader, LanceFileWriter

TOKEN = re.compile(
    r'\s*(?:(?P<bstr>b"(?:[^"\\]|\\.)*")|(?P<str>"(?:[^"\\]|\\.)*")'
    r'|(?P<num>-?\d+(?:\.\d+)?)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[{}()\[\],:]))'
)


def tokenize(text):
    pos, out = 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip() == "":
                break
            raise ValueError("cannot tokenize at %r" % text[pos:pos + 40])
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def unescape_bytes(lit):
    body, out, i = lit[2:-1], bytearray(), 0
    simple = {"0": 0, "t": 9, "n": 10, "r": 13, "\\": 92, '"': 34, "'": 39}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(ord(c))
            i += 1
        elif body[i + 1] == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(simple[body[i + 1]])
            i += 2
    return list(out)


class Parser:
    def __init__(self, toks):
        self.toks, self.i = toks, 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, want=None):
        tok = self.toks[self.i]
        if want is not None and tok[1] != want:
            raise ValueError("want %r got %r" % (want, tok))
        self.i += 1
        return tok

    def value(self):
        kind, text = self.take()
        if kind == "num":
            return float(text) if "." in text else int(text)
        if kind == "bstr":
            return unescape_bytes(text)
        if kind == "str":
            return json.loads(text)
        if text == "[":
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("]")
            return items
        if kind != "ident":
            raise ValueError("unexpected %r" % text)
        nxt = self.peek()[1]
        if nxt == "{":
            self.take("{")
            obj = {"_type": text}
            while self.peek()[1] != "}":
                name = self.take()[1]
                self.take(":")
                obj[name] = self.value()
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("}")
            return obj
        if nxt == "(":
            self.take("(")
            inner = self.value()
            if self.peek()[1] == ",":
                self.take(",")
            self.take(")")
            return inner if text == "Some" else {text: inner}
        if text == "None":
            return None
        if text in ("true", "false"):
            return text == "true"
        return text


def parse_debug(text):
    return Parser(tokenize(text)).value()


def float_bits(arr, bits):
    view = np.uint32 if bits == 32 else np.uint64
    vals = np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False)).view(view)
    return [None if not v else int(x) for x, v in zip(vals, arr.is_valid().to_pylist())]


def expected(arr):
    t = arr.type
    if pa.types.is_floating(t):
        return {"kind": "float", "bits": t.bit_width, "values": float_bits(arr, t.bit_width)}
    if pa.types.is_list(t):
        return {"kind": "list", "bits": t.value_type.bit_width, "values": arr.to_pylist()}
    if pa.types.is_integer(t):
        return {"kind": "int", "bits": t.bit_width, "values": arr.to_pylist()}
    return {"kind": "string", "bits": 0, "values": arr.to_pylist()}


def cases(rng):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]

    def sentences(n):
        return [" ".join(rng.choice(words, 6)) + str(i) for i in range(n)]

    zstd = {"lance-encoding:compression": "zstd"}
    lz4 = {"lance-encoding:compression": "lz4"}
    yield "bitpack_i32", pa.array(np.arange(3000, dtype=np.int32) % 100), {}
    yield "bitpack_u8", pa.array(rng.integers(0, 16, 5000).astype(np.uint8)), {}
    yield "bitpack_i16", pa.array(rng.integers(-5, 300, 2100).astype(np.int16)), {}
    yield "bitpack_u16", pa.array(rng.integers(0, 300, 2100).astype(np.uint16)), {}
    yield "bitpack_zero_block", pa.array(np.concatenate([np.zeros(1024), rng.integers(0, 9, 3072)]).astype(np.int32)), {}
    yield "bitpack_u64", pa.array(rng.integers(0, 1 << 40, 2500).astype(np.uint64)), {}
    yield "bitpack_i64_1025", pa.array(np.arange(1025, dtype=np.int64) * 7), {}
    yield "bitpack_f32", pa.array(rng.random(2000).astype(np.float32)), {}
    yield "rle_i32", pa.array(np.repeat(rng.integers(0, 1 << 30, 20), 300).astype(np.int32)), {}
    yield "rle_u64", pa.array(np.repeat(rng.integers(0, 1 << 62, 50, dtype=np.uint64), 100)), {}
    yield "rle_u8", pa.array(np.repeat(rng.integers(0, 250, 40), 1000).astype(np.uint8)), {}
    yield "strings_plain", pa.array(sentences(500)), {}
    yield "strings_fsst", pa.array(sentences(3000)), {}
    yield "strings_dict", pa.array(rng.choice(words, 5000)), {}
    yield "strings_dict_nulls", pa.array([None if i % 7 == 0 else words[i % 5] for i in range(3000)]), {}
    yield "strings_zstd", pa.array(sentences(2000)), zstd
    yield "strings_lz4", pa.array(sentences(2000)), lz4
    yield "large_strings", pa.array(["%d" % i + "".join(rng.choice(list("abcdefgh"), 40000)) for i in range(4)]), {}
    yield "wide_strings", pa.array(["".join(rng.choice(list("xyz"), 300)) for _ in range(60)]), {}
    yield "zstd_i32", pa.array(rng.integers(0, 1 << 31, 3000).astype(np.int32)), zstd
    yield "lz4_i64", pa.array(rng.integers(0, 1 << 20, 3000).astype(np.int64)), lz4
    yield "bss_f64", pa.array(rng.random(2000)), {**zstd, "lance-encoding:bss": "on"}
    yield "bss_f32", pa.array(rng.random(2000).astype(np.float32)), {**zstd, "lance-encoding:bss": "on"}
    yield "nullable_i32", pa.array([None if i % 3 == 0 else i for i in range(3000)], pa.int32()), {}
    yield "nullable_small", pa.array([None if i % 4 == 1 else i * 3 for i in range(500)], pa.int64()), {}
    yield "nullable_strings", pa.array([None if i % 5 == 0 else "s%d" % i for i in range(2500)]), {}
    yield "list_nullable", pa.array([[i, i + 1, i * 9] if i % 5 else None for i in range(3000)], pa.list_(pa.int64())), {}
    yield "list_null_and_empty", pa.array([[i] * (i % 4) if i % 7 else None for i in range(2000)], pa.list_(pa.int32())), {}
    yield "one_value", pa.array([123456789], pa.int64()), {}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261129)
    result = []
    for name, arr, meta in cases(rng):
        field = pa.field("c", arr.type, metadata=meta or None)
        table = pa.table([arr], schema=pa.schema([field]))
        versions = ("2.1", "2.2")
        if name in ("strings_zstd", "strings_lz4"):
            versions += ("2.0",)
        for version in versions:
            path = os.path.join(out, "%s_%s.lance" % (name, version))
            writer = LanceFileWriter(path, version=version)
            writer.write_batch(table)
            writer.close()
            md = LanceFileReader(path).metadata()
            pages = [
                {"buffers": [[b.position, b.size] for b in p.buffers], "encoding": parse_debug(p.encoding)}
                for p in md.columns[0].pages
            ]
            result.append({"name": name, "version": version, "file": os.path.basename(path),
                           "pages": pages, "expected": expected(arr)})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
