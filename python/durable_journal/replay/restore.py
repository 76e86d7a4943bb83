"""What a restore does to a journal in flight, asked of the native library
(``durable_journal_plan_restore``, the rule of ``rust/journal/restore_plan.rs``
the Java replayers' ``RestorePlan`` asks too): from where the replay of the
entry through the new code stopped, the divergence policy's consequence."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from .. import _native
from .context import Stop

#: The divergence policies by name, numbered as the native library numbers them.
POLICIES = {"CUT": 0, "WARN": 1, "FAIL": 2}


def restore_plan(policy: str, replayed: int, stop: Optional[Stop], failure: Optional[str],
                 not_replayable: Optional[str] = None) -> Dict[str, Any]:
    """``{"replayed", "consequence", "text"}`` of a restore under ``policy``
    of an entry whose replay replayed ``replayed`` calls and stopped at
    ``stop`` (None: it finished), threw ``failure``, or could not follow the
    new code past ``not_replayable`` (why: memory it cannot rebuild)."""
    if policy not in POLICIES:
        raise ValueError(f"no divergence policy {policy!r} (policies: {', '.join(POLICIES)})")
    if not_replayable is not None:
        stop, failure = None, not_replayable
    kind = _native.utf8("not-replayable" if not_replayable is not None else "" if stop is None else stop.kind, "stop kind")
    recorded_id = _native.utf8(None if stop is None else stop.recorded_id, "recorded id")
    candidate_id = _native.utf8(None if stop is None else stop.candidate_id, "candidate id")
    failed = _native.utf8(failure, "failure")
    answer = _native.call(
        "durable_journal_plan_restore", POLICIES[policy], replayed, kind, _native.length(kind),
        -1 if stop is None else stop.position, recorded_id, _native.length(recorded_id),
        candidate_id, _native.length(candidate_id), failed, _native.length(failed),
    )
    return json.loads(answer)
