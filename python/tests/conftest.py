"""Which durable_journal the tests import.

From a checkout (``python3 -m pytest -q python/tests`` at the repository
root) they import the source tree, python/durable_journal, which finds the
library in target/release. With DURABLE_JOURNAL_TEST_INSTALLED=1 they import
the package installed in the running interpreter (scripts/test-python-install
does this in a fresh virtual environment, from a directory outside the
repository) and refuse to run against the source tree by mistake."""

import os
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = PYTHON_DIR.parent
VECTORS_FILE = REPO_DIR / "tests" / "vectors" / "identity.json"

TESTING_INSTALLED = os.environ.get("DURABLE_JOURNAL_TEST_INSTALLED") == "1"

#: What a child interpreter needs on PYTHONPATH to import the same package.
PACKAGE_PATH = [] if TESTING_INSTALLED else [str(PYTHON_DIR)]

if not TESTING_INSTALLED and str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

if TESTING_INSTALLED:
    import durable_journal

    _imported = Path(durable_journal.__file__).resolve()
    if REPO_DIR in _imported.parents:
        raise RuntimeError(
            f"DURABLE_JOURNAL_TEST_INSTALLED=1 but durable_journal was imported from the source tree "
            f"({_imported}); run pytest from outside the repository with PYTHONPATH unset"
        )


def flink_agents_runtime():
    """Flink Agents' two runtime modules durable_journal.flink_agents patches,
    (durable_execution, flink_runner_context); skips the calling test module
    where Flink Agents' Python runtime is not importable."""
    import pytest

    try:
        import flink_agents.runtime.durable_execution as durable_execution
        import flink_agents.runtime.flink_runner_context as flink_runner_context
    except ImportError as missing:
        pytest.skip(
            f"Flink Agents' Python runtime is not importable here ({missing}); "
            "scripts/setup installs it into build/pyenv, whose python Gradle's pythonTest uses",
            allow_module_level=True,
        )
    return durable_execution, flink_runner_context
