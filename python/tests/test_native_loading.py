"""How the package finds the native library, and that it hashes nothing itself."""

import os
import subprocess
import sys
from pathlib import Path

import durable_journal
from durable_journal import _native
from conftest import PYTHON_DIR, REPO_DIR

PACKAGE_DIR = Path(durable_journal.__file__).resolve().parent


def test_lookup_order(monkeypatch, tmp_path):
    monkeypatch.setenv("DURABLE_JOURNAL_LIB", str(tmp_path / "custom.so"))
    assert _native.candidate_paths() == [
        tmp_path / "custom.so",
        REPO_DIR / "target" / "release" / "libdurable_journal.so",
        PACKAGE_DIR / "libdurable_journal.so",
    ]
    monkeypatch.delenv("DURABLE_JOURNAL_LIB")
    assert _native.candidate_paths()[0] == REPO_DIR / "target" / "release" / "libdurable_journal.so"


def test_a_missing_library_is_reported_with_every_place_tried(tmp_path):
    # A copy of the package outside the repository, with no library anywhere.
    copy = tmp_path / "site"
    copy.mkdir()
    subprocess.run(["cp", "-r", str(PACKAGE_DIR), str(copy)], check=True)
    env = dict(os.environ, DURABLE_JOURNAL_LIB=str(tmp_path / "nope.so"), PYTHONPATH=str(copy))
    result = subprocess.run(
        [sys.executable, "-c", "import durable_journal as d; d.tool_call_durable_id('x')"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "libdurable_journal.so not found" in result.stderr
    assert "nope.so (not found)" in result.stderr
    assert "cargo build --release" in result.stderr


def test_the_package_never_hashes():
    for source in PACKAGE_DIR.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "hashlib" not in text and "hash(" not in text, source


def test_importing_the_package_does_not_load_the_library():
    env = dict(os.environ, DURABLE_JOURNAL_LIB="/nonexistent/lib.so", PYTHONPATH=str(PYTHON_DIR))
    code = "import durable_journal, durable_journal._native as n; assert n._library is None"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
