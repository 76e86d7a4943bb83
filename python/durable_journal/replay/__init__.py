"""Replaying recorded Flink Agents Python actions against a candidate agent
before it ships (docs/replay.md "Flink Agents Python actions")::

    from durable_journal.replay import Selection, replay
    report = replay("/data/journal/subtask-0", MyChangedAgent(), Selection(key="str:user-1"))
    print(report.to_table())                      # or report.to_json()
    raise SystemExit(report.exit_status())

or ``python -m durable_journal.replay --store DIR --agent module:attr``.
"""

from .recorded import RecordedAction, Selection, read_retained
from .report import FAIL_ON_ANY_CHANGE, OUTCOMES, ActionReplay, ReplayReport
from .replayer import plan_of, replay, replay_recorded

__all__ = [
    "FAIL_ON_ANY_CHANGE",
    "OUTCOMES",
    "ActionReplay",
    "RecordedAction",
    "ReplayReport",
    "Selection",
    "plan_of",
    "read_retained",
    "replay",
    "replay_recorded",
]
