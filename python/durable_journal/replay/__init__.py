"""Replaying recorded Flink Agents Python actions against a candidate agent
before it ships (docs/replay.md "Flink Agents Python actions")::

    from durable_journal.replay import Selection, replay
    report = replay("/data/journal/subtask-0", MyChangedAgent(), Selection(key="str:user-1"))
    print(report.to_table())                      # or report.to_json()
    raise SystemExit(report.exit_status())

or ``python -m durable_journal.replay --store DIR --agent module:attr`` (``--dump FILE``
for a dump of a Kafka store's retained topic; ``--plan-restore POLICY`` for what a
restore does to the journals in flight).
"""

from .recorded import RecordedAction, Selection, read_in_flight, read_retained, read_retained_dump
from .report import FAIL_ON_ANY_CHANGE, OUTCOMES, ActionReplay, ReplayReport
from .replayer import plan_of, plan_restore, replay, replay_dump, replay_recorded
from .restore import POLICIES, restore_plan

__all__ = [
    "FAIL_ON_ANY_CHANGE",
    "OUTCOMES",
    "POLICIES",
    "ActionReplay",
    "RecordedAction",
    "ReplayReport",
    "Selection",
    "plan_of",
    "plan_restore",
    "read_in_flight",
    "read_retained",
    "read_retained_dump",
    "replay",
    "replay_dump",
    "replay_recorded",
    "restore_plan",
]
