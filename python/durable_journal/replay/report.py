"""The side-by-side report of a replay, in the JSON shape of the Java
replayer's ``ReplayReport`` (docs/replay.md "The report"), so one CI step
reads both: per action key, seq, action, plan digest, outcome, calls
replayed of recorded, stubbed calls, where it stopped, recorded and
candidate outputs, old paths, memory and detail; a summary; the other
action names. Flink Agents Python actions add two outcomes (an action the
candidate's plan no longer triggers on the recorded event, and one it newly
triggers) and the memory updates next to each other."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional

from .context import Stop

#: From the most to the least severe (the Java replayer's, with the two trigger outcomes).
OUTCOMES = (
    "not-replayable",
    "diverged",
    "would-run",
    "failed",
    "not-triggered",
    "newly-triggered",
    "output-changed",
    "unchanged",
)
#: What a CI step fails on by default: every outcome but unchanged.
FAIL_ON_ANY_CHANGE = frozenset(OUTCOMES) - {"unchanged"}


@dataclass
class ActionReplay:
    key: str
    seq: int
    action: str
    plan_digest: Optional[str]
    outcome: str
    recorded_calls: int
    replayed_calls: int = 0
    stubbed_calls: List[str] = field(default_factory=list)
    stop: Optional[Stop] = None
    recorded_outputs: List[str] = field(default_factory=list)
    candidate_outputs: List[str] = field(default_factory=list)
    old_paths: List[str] = field(default_factory=list)
    memory: str = "not read"
    detail: Optional[str] = None
    recorded_memory_updates: List[str] = field(default_factory=list)
    candidate_memory_updates: List[str] = field(default_factory=list)

    def to_json_value(self) -> Dict[str, Any]:
        stop = None
        if self.stop is not None:
            stop = {
                "kind": self.stop.kind,
                "position": self.stop.position,
                "recordedId": self.stop.recorded_id,
                "recordedStatus": self.stop.recorded_status,
                "candidateId": self.stop.candidate_id,
                "candidateArgsDigest": self.stop.candidate_args_digest,
            }
        return {
            "key": self.key,
            "seq": self.seq,
            "action": self.action,
            "planDigest": self.plan_digest,
            "outcome": self.outcome,
            "recordedCalls": self.recorded_calls,
            "replayedCalls": self.replayed_calls,
            "stubbedCalls": list(self.stubbed_calls),
            "stop": stop,
            "outputsEqual": self.outcome == "unchanged",
            "recordedOutputs": list(self.recorded_outputs),
            "candidateOutputs": list(self.candidate_outputs),
            "oldPaths": list(self.old_paths),
            "memory": self.memory,
            "detail": self.detail,
            "recordedMemoryUpdates": list(self.recorded_memory_updates),
            "candidateMemoryUpdates": list(self.candidate_memory_updates),
        }


class ReplayReport:
    def __init__(self, candidate: str, actions: Iterable[ActionReplay], other_actions: Dict[str, int]):
        self.candidate = candidate
        self.actions = list(actions)
        self.other_actions = dict(sorted(other_actions.items()))

    def summary(self) -> Dict[str, int]:
        """How many actions had each outcome (every outcome, zeros included)."""
        counts = dict.fromkeys(OUTCOMES, 0)
        for action in self.actions:
            counts[action.outcome] += 1
        return counts

    def exit_status(self, fail_on: Iterable[str] = FAIL_ON_ANY_CHANGE) -> int:
        """1 when an action's outcome is in ``fail_on``, else 0."""
        wanted = set(fail_on)
        return 1 if any(a.outcome in wanted for a in self.actions) else 0

    def summary_line(self) -> str:
        counts = ", ".join(f"{n} {outcome}" for outcome, n in self.summary().items())
        line = f"{len(self.actions)} replayed of {self.candidate}: {counts}"
        if self.other_actions:
            line += "; not replayed, other action names: " + json.dumps(self.other_actions)
        return line

    def to_json_value(self) -> Dict[str, Any]:
        return {
            "candidateAction": self.candidate,
            "summary": {"replayed": len(self.actions), **self.summary()},
            "otherActions": self.other_actions,
            "actions": [a.to_json_value() for a in self.actions],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_json_value(), indent=2, ensure_ascii=False)

    def to_table(self) -> str:
        rows = [["key", "seq", "action", "outcome", "calls", "detail"]]
        for a in self.actions:
            detail = a.detail or (a.stop.describe() if a.stop else "")
            if not detail and a.outcome == "output-changed":
                detail = f"recorded {a.recorded_outputs} {a.recorded_memory_updates} -> {a.candidate_outputs} {a.candidate_memory_updates}"
            if a.stubbed_calls:
                detail = f"{detail} stubbed {a.stubbed_calls}".strip()
            if a.old_paths:
                detail = f"{detail} old path of {a.old_paths}".strip()
            rows.append([a.key, str(a.seq), a.action, a.outcome, f"{a.replayed_calls}/{a.recorded_calls} replayed", detail])
        widths = [max(len(row[c]) for row in rows) for c in range(6)]
        lines = ["  ".join(cell.ljust(widths[c]) if c < 5 else cell for c, cell in enumerate(row)).rstrip() for row in rows]
        return "\n".join(lines) + "\n" + self.summary_line() + "\n"
