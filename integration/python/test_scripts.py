"""The repo's Python data scripts: scripts/demo_data.py and the file-fixture generator.

These need no server; they check that the scripts run with the pinned venv and
write what they promise.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import lance
import pyarrow as pa
import pytest

from repo_scripts import DEMO_DATA as DEMO
from repo_scripts import GEN_FILE_FIXTURES as GEN
from repo_scripts import load_module

FILE_VERSION = {"2.0": "0.3", "2.1": "2.1", "2.2": "2.2"}  # footer major.minor per data storage version


def run(*args, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        pytest.fail(f"{args} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def test_demo_data(tmp_path, capsys):
    run(DEMO, tmp_path / "a")  # once through the CLI, as `make run` calls it
    demo = load_module(DEMO)
    assert demo.main([str(tmp_path / "b")]) == 0
    a = lance.dataset(str(tmp_path / "a" / "demo.lance"))
    assert a.count_rows() == 300
    assert a.data_storage_version == demo.DATA_STORAGE_VERSION == "2.0"
    assert a.schema.names == ["id", "city", "product", "qty", "amount", "ordered", "shipped"]
    assert a.schema.field("ordered").type == pa.date32()
    tbl = a.to_table()
    assert tbl.column("id").to_pylist() == list(range(1, 301))
    assert 0 < tbl.column("amount").null_count < 300
    # Deterministic: a second run writes the same rows.
    assert lance.dataset(str(tmp_path / "b" / "demo.lance")).to_table().equals(tbl)
    # Refuses to clobber, replaces with --overwrite.
    capsys.readouterr()
    assert demo.main([str(tmp_path / "a")]) == 1
    assert "already exists" in capsys.readouterr().err
    assert demo.main([str(tmp_path / "a"), "--overwrite", "--rows", "10"]) == 0
    assert lance.dataset(str(tmp_path / "a" / "demo.lance")).count_rows() == 10


SUBSET = r"^(int8|utf8|float32|struct_nested|dictionary_int32_utf8)_(some|all)$|^edge_(runs|constant|tiny_pages)$"


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    out = tmp_path_factory.mktemp("filefixtures")
    run(GEN, out, "--only", SUBSET)
    gen = load_module(GEN)
    planned = [f"{gen.version_tag(p.version)}/{p.name}"
               for p in gen.planned_cases(gen.VERSIONS, re.compile(SUBSET))]
    return out, json.loads((out / "index.json").read_text()), planned


def test_fixture_index_covers_every_planned_case(fixtures):
    _, index, planned = fixtures
    listed = [c["name"] for c in index["cases"]] + [s["name"] for s in index["skipped"]]
    assert sorted(listed) == sorted(planned)
    assert len(planned) == 3 * (5 * 2 + 3)
    # The only refusals: null structs at 2.0.
    assert sorted(s["name"] for s in index["skipped"]) == ["v2_0/struct_nested_all", "v2_0/struct_nested_some"]
    assert all("struct validity" in s["reason"] for s in index["skipped"])
    assert index["aim_misses"] == []


def test_fixture_expected_matches_dataset(fixtures):
    out, index, _ = fixtures
    for case in index["cases"]:
        ds = lance.dataset(str(out / case["dataset_dir"]))
        assert ds.data_storage_version == case["version"], case["name"]
        with pa.OSFile(str(out / case["expected"])) as f:
            expected = pa.ipc.open_file(f).read_all()
        got = ds.to_table()
        assert expected.schema == got.schema, case["name"]
        assert repr(expected.to_pylist()) == repr(got.to_pylist()), case["name"]  # NaN-aware
        assert expected.num_rows == case["rows"]
        files = case["data_files"]
        assert len(files) == 1, case["name"]
        assert (out / files[0]["path"]).is_file()
        assert files[0]["file_version"] == FILE_VERSION[case["version"]], case["name"]
        assert files[0]["num_rows"] == case["rows"]


def test_fixture_null_patterns_and_encodings(fixtures):
    out, index, _ = fixtures
    by_name = {c["name"]: c for c in index["cases"]}
    some = pa.ipc.open_file(str(out / by_name["v2_1/int8_some"]["expected"])).read_all().column("v")
    assert some.null_count == 333 and some[2].as_py() is None and some[0].as_py() == -128
    assert by_name["v2_2/utf8_all"]["rows"] == 1000
    # Edge cases hit the encodings they aim at.
    runs = by_name["v2_1/edge_runs"]["data_files"][0]["columns"][0]["encodings"]
    assert "Rle" in runs
    constant = by_name["v2_2/edge_constant"]["data_files"][0]["columns"]
    assert all("ConstantLayout" in col["encodings"] for col in constant)
    tiny = by_name["v2_1/edge_tiny_pages"]["data_files"][0]["columns"]
    assert [col["pages"] for col in tiny] == [64, 64, 64]
