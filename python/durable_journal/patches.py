"""``patched(ctx, change_id)`` for Python actions (Temporal's idea): whether
this execution runs the code of a change, so that a replay of an execution
recorded before the change takes the old path.

True in new executions and in replays of executions that recorded the
change's marker; False in replays of executions recorded before the change.
The marker is a journal slot (``patched:<change_id>``, a success with no
payload) recorded at the first call on a new path, so the answer replays
stably. The rule is the native library's (``durable_journal_patch_step``);
this module reads the slot in front of the call index from the action's
runner context and does what the library says, nothing more.

``ctx`` is Flink Agents' Python runner context, whose journal is its Java
runner context (``ctx._j_runner_context``, under ``DurableAgents`` the
native journal): its ``getCurrentCallResultFields``,
``recordCallCompletion`` and ``matchNextOrClearSubsequentCallResult``.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from ._native import call, length, utf8

#: The args digest a marker slot carries (none: markers have no arguments).
_NO_DIGEST = ""


def _slot_shape(fields: Any) -> Tuple[Optional[str], Any]:
    """The id and status of the slot in front of the call index, from either
    shape of ``getCurrentCallResultFields``: Flink Agents' runner context
    (``[functionId, argsDigest, status, result, exception]``; a marker has no
    digest, so its function id is its id, and a slot with a digest is a call,
    never a marker) or durable-journal's own (``[id, status, result, exception]``)."""
    if fields is None:
        return None, None
    if len(fields) == 5:
        return fields[0], fields[2]
    return fields[0], fields[1]


def patched(ctx: Any, change_id: str) -> bool:
    """Whether this execution of the action takes the code of ``change_id``.
    Call it where the changed code begins, in the same place on every run."""
    journal = ctx._j_runner_context
    from .replay.context import ReplayJavaContext

    if isinstance(journal, ReplayJavaContext):  # a replay: its native journal answers (durable_journal.replay)
        return journal.patched(change_id)
    slot_id, status = _slot_shape(journal.getCurrentCallResultFields())
    change = utf8(change_id, "change_id")
    encoded_id, encoded_status = utf8(slot_id, "slot id"), utf8(None if status is None else str(status), "slot status")
    answer = call(
        "durable_journal_patch_step",
        change,
        length(change),
        encoded_id,
        length(encoded_id),
        encoded_status,
        length(encoded_status),
    )
    step, marker = answer.split(" ", 1)
    if step == "record":
        journal.recordCallCompletion(marker, _NO_DIGEST, None, None)
    elif step == "replay":
        journal.matchNextOrClearSubsequentCallResult(marker, _NO_DIGEST)
    return step != "old"
