"""The Python copies of the constants shared with Rust and Java, checked
against tests/vectors/constants.json (the one table all three read)."""

import json

from conftest import VECTORS_FILE

from durable_journal import _native, canonical

SHARED = json.loads((VECTORS_FILE.parent / "constants.json").read_text(encoding="utf-8"))


def test_error_codes_match_the_shared_table_in_both_directions():
    python_codes = {code.name: code.value for code in _native.ErrorCode}
    assert python_codes == SHARED["error_codes"]


def test_c_abi_version_matches():
    assert _native.ABI_VERSION == SHARED["c_abi_version"]


def test_canonical_nesting_limit_matches():
    assert canonical.MAX_NESTING == SHARED["canonical_max_nesting"]
