"""Paths of the repo's Python scripts and a loader to call them in-process."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO_DATA = REPO_ROOT / "scripts" / "demo_data.py"
GEN_FILE_FIXTURES = REPO_ROOT / "lanceformat" / "testdata" / "gen_file_fixtures.py"


def load_module(path: pathlib.Path):
    """Import a script by path (it is not on sys.path) and return the module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
