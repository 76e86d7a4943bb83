"""The memory a replayed action reads: what it read in production, rebuilt
from the memory updates of the retained actions of its key that completed
before it, in order, or, when that history is incomplete, nothing: the
action stops at its first read and the report says "memory not
reconstructible" (never a silently different value).

A stand-in for the Java ``MemoryObject`` behind Flink Agents' Python
``FlinkMemoryObject`` (``get``, ``set``, ``isExist``, ``getFieldNames``,
``getFields``, ``newObject``): paths are dotted, as Flink Agents' are; the
updates the action makes are kept to compare with the recorded ones."""

from __future__ import annotations

import bisect
from typing import Any, Callable, Dict, List, Optional, Sequence

from .kryo import UnreadableValue, read_value
from .recorded import RecordedAction


class MemoryNotReconstructible(Exception):
    """Why the memory an action reads cannot be given to it."""


class History:
    """What the retained actions of a store say about the memory each one
    read: indexed once, so that a replay of many actions stays linear."""

    def __init__(self, retained: Sequence[RecordedAction]):
        self._numbers = sorted(a.number for a in retained)
        self._by_key: Dict[str, List[RecordedAction]] = {}
        for action in sorted(retained, key=lambda a: a.number):
            self._by_key.setdefault(action.key, []).append(action)

    def _earlier(self, recorded: RecordedAction) -> List[RecordedAction]:
        """The key's actions that completed before ``recorded``."""
        of_key = self._by_key.get(recorded.key, [])
        return of_key[: bisect.bisect_left([a.number for a in of_key], recorded.number)]

    def gap(self, recorded: RecordedAction) -> Optional[str]:
        """Why the retained actions do not hold every memory update
        ``recorded`` read, or None when they do: the store dropped none of
        the copies that completed before it (their numbers run from 0
        without a gap) and its key's sequence numbers run from 0 to its own."""
        before = bisect.bisect_left(self._numbers, recorded.number)
        if before != recorded.number or (before and self._numbers[0] != 0):
            missing = sorted(set(range(recorded.number)) - set(self._numbers[:before]))
            return (f"the store no longer holds {len(missing)} of the {recorded.number} actions that completed before it "
                    f"(retention dropped them; the first missing is number {missing[0]})")
        missing_seqs = sorted(set(range(recorded.seq)) - {a.seq for a in self._earlier(recorded)})
        if missing_seqs:
            return f"no retained action of key {recorded.key} has sequence number {missing_seqs[0]}"
        return None

    def earlier_count(self, recorded: RecordedAction) -> int:
        return len(self._earlier(recorded))

    def updates(self, recorded: RecordedAction, sensory: bool) -> List[Dict[str, Any]]:
        """The memory updates of the key's actions that completed before
        ``recorded``, in (seq, completion) order: short-term memory across the
        key's inputs, sensory memory within its input (sequence number) only."""
        earlier = sorted((a for a in self._earlier(recorded) if not sensory or a.seq == recorded.seq),
                         key=lambda a: (a.seq, a.number))
        updates: List[Dict[str, Any]] = []
        for action in earlier:
            updates.extend(action.sensory_memory_updates if sensory else action.short_term_memory_updates)
        return updates


class ReplayMemory:
    """One memory (short-term or sensory) of a replayed action. ``updates``
    is the earlier actions' updates, or None when they are not known
    (``gap`` says why): the first read then raises ``on_unreadable``'s stop."""

    def __init__(self, updates: Optional[List[Dict[str, Any]]], gap: Optional[str], on_unreadable: Callable[[str], BaseException]):
        self._values: Dict[str, Any] = {}
        self._gap = gap
        self._on_unreadable = on_unreadable
        self.read = False
        #: The action's own updates, as ``{"path", "value"}``.
        self.updates: List[Dict[str, Any]] = []
        if updates is not None:
            try:
                for update in updates:
                    self._values[update["path"]] = read_value(update["value"])
            except UnreadableValue as e:
                self._gap = f"an earlier memory update holds a value a replay does not read ({e})"

    def view(self, prefix: str = "") -> "_MemoryView":
        return _MemoryView(self, prefix)

    def _reading(self) -> Dict[str, Any]:
        self.read = True
        if self._gap is not None:
            raise self._on_unreadable(self._gap)
        return self._values

    def _set(self, path: str, value: Any) -> None:
        self._values[path] = value
        self.updates.append({"path": path, "value": value})


class _Value:
    """A direct field, as the Java memory object answers ``get``."""

    def __init__(self, value: Any):
        self._value = value

    def isNestedObject(self) -> bool:  # noqa: N802 - the Java name Flink Agents calls
        return False

    def getValue(self) -> Any:  # noqa: N802
        return self._value


class _Ref:
    def __init__(self, path: str):
        self._path = path

    def getPath(self) -> str:  # noqa: N802
        return self._path


class _MemoryView:
    """The Java MemoryObject methods Flink Agents' FlinkMemoryObject calls, at a path prefix."""

    def __init__(self, memory: ReplayMemory, prefix: str):
        self._memory = memory
        self._prefix = prefix

    def isNestedObject(self) -> bool:  # noqa: N802
        return True

    def get(self, path: str) -> Any:
        values = self._memory._reading()
        full = self._prefix + path
        if full in values:
            return _Value(values[full])
        if any(p.startswith(full + ".") for p in values):
            return _MemoryView(self._memory, full + ".")
        return None

    def set(self, path: str, value: Any) -> _Ref:
        self._memory._set(self._prefix + path, value)
        return _Ref(self._prefix + path)

    def isExist(self, path: str) -> bool:  # noqa: N802
        full = self._prefix + path
        values = self._memory._reading()
        return full in values or any(p.startswith(full + ".") for p in values)

    def getFieldNames(self) -> List[str]:  # noqa: N802
        names = []
        for path in self._memory._reading():
            if path.startswith(self._prefix):
                name = path[len(self._prefix):].split(".", 1)[0]
                if name not in names:
                    names.append(name)
        return names

    def getFields(self) -> Dict[str, Any]:  # noqa: N802
        values = self._memory._reading()
        return {name: values[self._prefix + name] for name in self.getFieldNames() if self._prefix + name in values}

    def newObject(self, path: str, overwrite: bool) -> "_MemoryView":  # noqa: N802
        self._memory._reading()
        return _MemoryView(self._memory, self._prefix + path + ".")
