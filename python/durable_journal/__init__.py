"""durable-journal for Python: one identity scheme with the Java runtime.

All hashing happens in the native library (``libdurable_journal``), found
through ``$DURABLE_JOURNAL_LIB``, else the copy ``pip install`` put inside this
package, else, for the source tree of a checkout, ``<repo>/target/release``.
"""

from ._native import (
    ErrorCode,
    IllegalStateError,
    InvalidArgumentError,
    JournalError,
    NonCanonicalArgumentError,
)
from .calls import CallInterruptedError, DurableCall, call_idempotency_key, current_call, running_call
from .canonical import NonCanonicalValue, call_tree, value_tree
from .patches import patched
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
    "CallInterruptedError",
    "DurableCall",
    "ErrorCode",
    "ExecutionIdentity",
    "IllegalStateError",
    "InvalidArgumentError",
    "JournalError",
    "NonCanonicalArgumentError",
    "NonCanonicalValue",
    "RuntimeIdentity",
    "call_idempotency_key",
    "call_tree",
    "compute_args_digest",
    "compute_function_id",
    "current_call",
    "durable_identity_for_call",
    "patched",
    "running_call",
    "tool_call_durable_id",
    "value_tree",
]
