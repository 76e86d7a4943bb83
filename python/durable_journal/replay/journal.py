"""The journal a replayed action's durable calls meet: the native library's
journal over the recorded calls (divergence policy FAIL), through the C ABI.
Every decision (which slot replays, a divergence, a patch marker) is the
library's; this class moves the answers."""

from __future__ import annotations

import ctypes
import json
from typing import Any, Dict, Optional

from .. import _native


class ReplayJournal:
    """The recorded calls of one action (its state's JSON), at index 0.
    Use as a context manager or call close()."""

    def __init__(self, state_json: str):
        state = state_json.encode("utf-8")
        handle = ctypes.c_void_p()
        _native.call("durable_journal_replay_journal_new", state, len(state), ctypes.byref(handle))
        self._handle: Optional[int] = handle.value

    def match_next(self, function_id: str, args_digest: str) -> Dict[str, Any]:
        """``{"step": "hit", "position": i}``, ``{"step": "run", "position": i}``
        or ``{"step": "diverged", "divergence": {...}}`` (the library's diff)."""
        return json.loads(self._call("durable_journal_replay_journal_match_next", function_id, args_digest))

    def record(self, function_id: str, args_digest: str) -> None:
        """A call the recording lacks, answered by a stub: its slot, so the
        index moves on as after a run call."""
        self._call("durable_journal_replay_journal_record", function_id, args_digest)

    def patched(self, change_id: str) -> bool:
        return self._call("durable_journal_replay_journal_patched", change_id) == "true"

    def position(self) -> Dict[str, Any]:
        """``{"position": i, "length": n, "slot": {...} or None}``."""
        return json.loads(_native.call("durable_journal_replay_journal_position", self._live()))

    def _call(self, name: str, *texts: str) -> str:
        encoded = []
        for text in texts:
            data = _native.utf8(text, "text")
            encoded += [data, _native.length(data)]
        return _native.call(name, self._live(), *encoded)

    def _live(self) -> int:
        if self._handle is None:
            raise RuntimeError("ReplayJournal is closed")
        return self._handle

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _native.free_replay_journal(handle)

    def __enter__(self) -> "ReplayJournal":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
