"""Makes ``import durable_journal`` work from a checkout without installing
(``python3 -m pytest -q python/tests`` from the repository root). The native
library is found the usual way: $DURABLE_JOURNAL_LIB, else
<repo>/target/release/libdurable_journal.so."""

import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = PYTHON_DIR.parent
VECTORS_FILE = REPO_DIR / "tests" / "vectors" / "identity.json"

if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))
