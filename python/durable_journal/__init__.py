"""durable-journal for Python: one identity scheme with the Java runtime.

All hashing happens in the native library (``libdurable_journal.so``), found
through ``$DURABLE_JOURNAL_LIB``, else ``<repo>/target/release`` next to this
package's source, else a copy inside this package.
"""

from ._native import (
    ErrorCode,
    IllegalStateError,
    InvalidArgumentError,
    JournalError,
    NonCanonicalArgumentError,
)
from .canonical import NonCanonicalValue, call_tree, value_tree
from .identity import (
    CHAT_DURABLE_ID,
    ExecutionIdentity,
    RuntimeIdentity,
    compute_args_digest,
    compute_function_id,
    durable_identity_for_call,
    tool_call_durable_id,
)

__all__ = [
    "CHAT_DURABLE_ID",
    "ErrorCode",
    "ExecutionIdentity",
    "IllegalStateError",
    "InvalidArgumentError",
    "JournalError",
    "NonCanonicalArgumentError",
    "NonCanonicalValue",
    "RuntimeIdentity",
    "call_tree",
    "compute_args_digest",
    "compute_function_id",
    "durable_identity_for_call",
    "tool_call_durable_id",
    "value_tree",
]
