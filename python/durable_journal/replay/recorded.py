"""The recorded actions a file store retained, or a dump of a Kafka store's
retained topic holds, and the live entries in flight of a file store, read
read-only through the native library (``durable_journal_read_retained``,
``durable_journal_read_retained_dump``, ``durable_journal_read_in_flight``),
and which of them a replay takes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from .. import _native


@dataclass(frozen=True)
class RecordedAction:
    """One completed action as the store kept it: its address, its plan
    digest, and its state (the triggering event, every call with its
    outcome, memory updates and output events) as the state's JSON text and
    parsed."""

    number: int
    completed_at_millis: int
    plan_digest: Optional[str]
    key: str
    seq: int
    action: str
    event: str
    state_json: str
    state: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def calls(self) -> List[Dict[str, Any]]:
        return self.state.get("callResults") or []

    @property
    def task_event(self) -> Optional[Dict[str, Any]]:
        return self.state.get("taskEvent")

    @property
    def output_events(self) -> List[Any]:
        return self.state.get("outputEvents") or []

    @property
    def short_term_memory_updates(self) -> List[Dict[str, Any]]:
        return self.state.get("shortTermMemoryUpdates") or []

    @property
    def sensory_memory_updates(self) -> List[Dict[str, Any]]:
        return self.state.get("sensoryMemoryUpdates") or []


def read_retained(store_dir: Union[str, Path]) -> List[RecordedAction]:
    """The retained actions of the store in ``store_dir``, oldest first,
    read without the lock and without changing any file."""
    return _read_from_directory("durable_journal_read_retained", store_dir)


def read_retained_dump(dump_file: Union[str, Path]) -> List[RecordedAction]:
    """The retained actions in a dump of a Kafka store's retained topic
    (``KafkaJournalTool dump <servers> <topic>-retained <file>``), oldest
    first: per record key the newest copy, per action the last, decoded by
    the native library as the Java replayer's ``RecordedActions.dump``."""
    dump = Path(dump_file).read_bytes()
    return _rows(_native.call("durable_journal_read_retained_dump", dump, len(dump)))


def read_in_flight(store_dir: Union[str, Path]) -> List[RecordedAction]:
    """The live entries of the store in ``store_dir`` that are not
    completed (the journals a restore replays), read as ``durable-journal
    list`` reads them: no lock, no file changed. ``number`` is an entry's
    place among them, ``completed_at_millis`` -1."""
    return _read_from_directory("durable_journal_read_in_flight", store_dir)


def _read_from_directory(function: str, store_dir: Union[str, Path]) -> List[RecordedAction]:
    directory = _native.utf8(str(store_dir), "store directory")
    return _rows(_native.call(function, directory, _native.length(directory)))


def _rows(answer: str) -> List[RecordedAction]:
    return [
        RecordedAction(
            number=row["number"],
            completed_at_millis=row["completedAtMillis"],
            plan_digest=row["planDigest"],
            key=row["key"],
            seq=row["seq"],
            action=row["action"],
            event=row["event"],
            state_json=row["state"],
            state=json.loads(row["state"]),
        )
        for row in json.loads(answer)
    ]


@dataclass(frozen=True)
class Selection:
    """Which recorded actions a replay takes: by business key (as the
    inspection tool prints it, ``str:user-1``), action name, completion time
    (``since`` <= t < ``until``, Unix milliseconds) and at most ``limit``,
    oldest first (as the Java replayer's ``ReplaySelection``)."""

    key: Optional[str] = None
    action: Optional[str] = None
    since: Optional[int] = None
    until: Optional[int] = None
    limit: Optional[int] = None

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 0:
            raise ValueError(f"limit must not be negative: {self.limit}")

    def apply(self, recorded: Sequence[RecordedAction]) -> List[RecordedAction]:
        chosen: List[RecordedAction] = []
        for action in recorded:
            if self.limit is not None and len(chosen) >= self.limit:
                break
            if (
                (self.key is None or self.key == action.key)
                and (self.action is None or self.action == action.action)
                and (self.since is None or action.completed_at_millis >= self.since)
                and (self.until is None or action.completed_at_millis < self.until)
            ):
                chosen.append(action)
        return chosen
