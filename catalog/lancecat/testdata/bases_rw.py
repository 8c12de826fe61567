"""pylance's side of the base-path write tests (bases_write_test.go).

Usage:
  bases_rw.py dump URI    validates every version of the dataset at URI (Dataset.validate) and
                          prints pylance's rows of each as JSON:
                          {version: [[col, ...], ...] sorted by the first column (x)}
  bases_rw.py write URI   appends x = 2000..2002, deletes x = 2001 and x = 1001 (a row
                          flightd appended), and compacts (optimize.compact_files)
"""

import json
import sys

import lance
import pyarrow as pa


def rows(ds):
    t = ds.to_table().sort_by("x")
    return [list(r.values()) for r in t.to_pylist()]


def dump(uri):
    out = {}
    for v in lance.dataset(uri).versions():
        ds = lance.dataset(uri, version=v["version"])
        ds.validate()
        out[str(v["version"])] = rows(ds)
    json.dump(out, sys.stdout)


def value(name, x):
    if name == "s":
        return f"s{x}"
    if name == "y":
        return 2 * x
    return x


def write(uri):
    ds = lance.dataset(uri)
    xs = [2000, 2001, 2002]
    cols = {f.name: pa.array([value(f.name, x) for x in xs], f.type) for f in ds.schema}
    lance.write_dataset(pa.table(cols, schema=ds.schema), uri, mode="append")
    ds = lance.dataset(uri)
    ds.delete("x = 2001 OR x = 1001")
    ds.optimize.compact_files()


def main():
    {"dump": dump, "write": write}[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
