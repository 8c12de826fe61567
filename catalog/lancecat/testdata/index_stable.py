"""pylance side of index_stable_test.go: scalar indexes on a table with stable row ids.

usage: index_stable.py DIR < {"conds": [SQL condition, ...]}
  builds DIR/st.lance (enable_stable_row_ids=True, 4 files of 1,000 rows: u int64 = 0..3999,
  s utf8 'v%03d' % (u % 30), every 7th s null), then, one version each:
    BTREE u_idx on u, BITMAP s_idx on s (the "indexed" version)
    update s of u % 97 = 0 to 'v999' and u of u < 20 to u + 100000 (rows keep their ids,
      move to a new fragment the indexes do not cover)
    delete u BETWEEN 500 AND 520
    append u = 4000..4499 (not covered)
    compact_files (rewrites fragments: the indexes' row ids stay valid)
  and prints {"versions": {version: {cond: {"lance": [u...], "lance_noindex": [u...],
  "plan": explain text}}}, "indexed": version} for every version from the indexed one on.
"""
import json
import sys

import lance
import pyarrow as pa


def table(lo, hi):
    us = list(range(lo, hi))
    ss = [None if u % 7 == 0 else "v%03d" % (u % 30) for u in us]
    return pa.table({"u": pa.array(us, pa.int64()), "s": pa.array(ss, pa.string())})


def answers(uri, version, conds):
    ds = lance.dataset(uri, version=version)
    out = {}
    for c in conds:
        with_ix = ds.to_table(columns=["u"], filter=c)["u"].to_pylist()
        without = ds.scanner(columns=["u"], filter=c, use_scalar_index=False).to_table()["u"].to_pylist()
        plan = ds.scanner(columns=["u"], filter=c).explain_plan(True)
        out[c] = {"lance": sorted(with_ix), "lance_noindex": sorted(without), "plan": plan}
    return out


def main():
    out_dir = sys.argv[1]
    conds = json.load(sys.stdin)["conds"]
    uri = out_dir + "/st.lance"
    ds = lance.write_dataset(table(0, 4000), uri, max_rows_per_file=1000, enable_stable_row_ids=True)
    ds.create_scalar_index("u", "BTREE", name="u_idx")
    ds.create_scalar_index("s", "BITMAP", name="s_idx")
    indexed = lance.dataset(uri).version
    ds = lance.dataset(uri)
    ds.update({"s": "'v999'"}, where="u % 97 = 0")
    ds = lance.dataset(uri)
    ds.update({"u": "u + 100000"}, where="u < 20")
    ds = lance.dataset(uri)
    ds.delete("u BETWEEN 500 AND 520")
    lance.write_dataset(table(4000, 4500), uri, mode="append")
    ds = lance.dataset(uri)
    ds.optimize.compact_files(target_rows_per_fragment=2500)
    latest = lance.dataset(uri).version
    versions = {str(v): answers(uri, v, conds) for v in range(indexed, latest + 1)}
    print(json.dumps({"versions": versions, "indexed": indexed}))


if __name__ == "__main__":
    main()
