"""peer.py's worker plus the operations of the index benchmarks (bench/index_bench_test.go).

usage: index_peer.py   (JSON requests on stdin, replies on stdout, as peer.py)

Extra operations:
  lance_filter   {uri, filter, columns, use_index}   lance.dataset(uri).scanner(columns=...,
                 filter=..., use_scalar_index=...).to_table() (what to_table does); the dataset object is opened once per uri
                 and kept, so its index cache stays warm as flightd's does. The reply adds
                 read_bytes and iops from pylance's scan statistics (scan_stats_callback).
  lance_explain  {uri, filter, columns}              the scanner's explain_plan(True), as text
  flightsql_text {addr, sql}                         a Flight SQL query whose result is text
                                                     (EXPLAIN ANALYZE): every value, row by
                                                     row, joined by newlines, as text
"""
import json
import sys
import time

import peer

_datasets = {}


def dataset(uri):
    import lance

    if uri not in _datasets:
        _datasets[uri] = lance.dataset(uri)
    return _datasets[uri]


_last_stats = {}


def op_lance_filter(req):
    ds = dataset(req["uri"])
    stats = {}

    def keep(s):
        stats["read_bytes"] = s.bytes_read
        stats["iops"] = s.iops

    t0 = time.perf_counter()
    tab = ds.scanner(columns=req.get("columns"), filter=req["filter"],
                     use_scalar_index=req.get("use_index", True), scan_stats_callback=keep).to_table()
    dt = time.perf_counter() - t0
    _last_stats.clear()
    _last_stats.update(stats)
    return dt, [tab]


def op_lance_explain(req):
    text = dataset(req["uri"]).scanner(columns=req.get("columns"), filter=req["filter"]).explain_plan(True)
    _last_stats["text"] = text
    return 0.0, []


def op_flightsql_text(req):
    dt, tables = peer.op_flightsql(req)
    lines = []
    for t in tables:
        for row in t.to_pylist():
            lines += [str(x) for x in row.values()]
    _last_stats["text"] = "\n".join(lines)
    return dt, tables


peer.OPS["lance_filter"] = op_lance_filter
peer.OPS["lance_explain"] = op_lance_explain
peer.OPS["flightsql_text"] = op_flightsql_text


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        _last_stats.clear()
        reply = peer.handle(json.loads(line))
        if "error" not in reply:
            reply.update(_last_stats)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
