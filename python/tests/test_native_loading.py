"""How the package finds the native library, and that it hashes nothing itself."""

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import durable_journal
from durable_journal import _native
from conftest import PACKAGE_PATH, REPO_DIR, TESTING_INSTALLED

PACKAGE_DIR = Path(durable_journal.__file__).resolve().parent
PACKAGED_COPIES = [
    PACKAGE_DIR / f"libdurable_journal{suffix}"
    for suffix in dict.fromkeys(importlib.machinery.EXTENSION_SUFFIXES)
]
CHECKOUT_BUILD = [] if TESTING_INSTALLED else [REPO_DIR / "target" / "release" / "libdurable_journal.so"]


def test_lookup_order(monkeypatch, tmp_path):
    monkeypatch.setenv("DURABLE_JOURNAL_LIB", str(tmp_path / "custom.so"))
    assert _native.candidate_paths() == [tmp_path / "custom.so", *PACKAGED_COPIES, *CHECKOUT_BUILD]
    monkeypatch.delenv("DURABLE_JOURNAL_LIB")
    assert _native.candidate_paths() == [*PACKAGED_COPIES, *CHECKOUT_BUILD]


def test_an_installed_package_never_looks_outside_itself(tmp_path):
    # A copy of the package outside any checkout, with a library inside.
    site = tmp_path / "site"
    copy_package(site)
    library = Path(_native.library_path())
    packaged = site / "durable_journal" / "libdurable_journal.abi3.so"
    shutil.copyfile(library, packaged)
    result = run_python(
        "import durable_journal as d, durable_journal._native as n; "
        "print(n.candidate_paths()); d.tool_call_durable_id('x'); print(n.library_path())",
        site,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    tried, loaded = result.stdout.splitlines()
    assert "target" not in tried
    assert Path(loaded) == packaged


@pytest.mark.skipif(not TESTING_INSTALLED, reason="runs against the package pip installed")
def test_the_installed_package_loads_its_own_library():
    loaded = _native.library_path()
    assert loaded.parent == PACKAGE_DIR
    assert REPO_DIR not in loaded.parents
    assert "DURABLE_JOURNAL_LIB" not in os.environ


def test_a_missing_library_is_reported_with_every_place_tried(tmp_path):
    # A copy of the package outside the repository, with no library anywhere.
    site = tmp_path / "site"
    copy_package(site)
    result = run_python(
        "import durable_journal as d; d.tool_call_durable_id('x')",
        site,
        cwd=tmp_path,
        DURABLE_JOURNAL_LIB=str(tmp_path / "nope.so"),
    )
    assert result.returncode != 0
    assert "libdurable_journal.so not found" in result.stderr
    assert "nope.so (not found)" in result.stderr
    assert "libdurable_journal.abi3.so (not found)" in result.stderr
    assert "pip install ./python" in result.stderr
    assert "cargo build --release" in result.stderr


def test_the_package_never_hashes():
    for source in PACKAGE_DIR.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "hashlib" not in text and "hash(" not in text, source


def test_importing_the_package_does_not_load_the_library(tmp_path):
    code = "import durable_journal, durable_journal._native as n; assert n._library is None"
    result = run_python(code, *PACKAGE_PATH, cwd=tmp_path, DURABLE_JOURNAL_LIB="/nonexistent/lib.so")
    assert result.returncode == 0, result.stderr


def copy_package(site: Path) -> None:
    """The package's Python files (no library) in ``site``."""
    shutil.copytree(
        PACKAGE_DIR,
        site / "durable_journal",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.dylib", "__pycache__"),
    )


def run_python(code: str, *path: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``python -c code`` with exactly ``path`` on PYTHONPATH."""
    child_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DURABLE_JOURNAL_LIB")}
    child_env.update(env, PYTHONPATH=os.pathsep.join(str(p) for p in path))
    return subprocess.run([sys.executable, "-c", code], env=child_env, cwd=cwd, capture_output=True, text=True)
