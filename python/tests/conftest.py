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
