"""The Java runner context a replayed Flink Agents Python action runs on:
Flink Agents' own ``FlinkRunnerContext`` (its durable calls, its
``send_event``, its memory objects) over this stand-in for the Java side,
which answers every durable call from the recording through the native
journal (``ReplayJournal``) and never lets a call's body run:

* a call the journal matches with the recorded slot at its position gets
  the recorded outcome (Flink Agents unpickles the value, ``None`` or the
  failure and returns or raises it);
* a call the recording lacks gets a stub's answer when one is given for its
  function id, else the action stops there (``ReplayStop``: would run);
* a call that differs from the recorded slot at its position stops the
  action with the journal's divergence;
* ``send_event`` and memory writes are kept to compare with the recording.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Mapping, Optional

from .. import _native
from .journal import ReplayJournal
from .memory import ReplayMemory


class ReplayStop(BaseException):
    """Ends a replayed action where it cannot go on without running a real
    call (or reading memory the replay cannot give). A BaseException, so an
    action catching ``Exception`` around its calls does not carry on past it."""


class Stop:
    """Where the candidate left the recording (the Java replayer's ``Stop``)."""

    def __init__(self, kind: str, position: int, recorded_id: Optional[str], recorded_status: Optional[str],
                 candidate_id: Optional[str], candidate_args_digest: Optional[str]):
        self.kind = kind
        self.position = position
        self.recorded_id = recorded_id
        self.recorded_status = recorded_status
        self.candidate_id = candidate_id
        self.candidate_args_digest = candidate_args_digest

    def describe(self) -> str:
        """In the native library's words (``durable_journal_describe_stop``), as the Java replayer's."""
        kind = _native.utf8(self.kind, "stop kind")
        recorded_id = _native.utf8(self.recorded_id, "recorded id")
        recorded_status = _native.utf8(self.recorded_status, "recorded status")
        candidate_id = _native.utf8(self.candidate_id, "candidate id")
        return _native.call(
            "durable_journal_describe_stop", kind, _native.length(kind), self.position, recorded_id,
            _native.length(recorded_id), recorded_status, _native.length(recorded_status), candidate_id,
            _native.length(candidate_id),
        )


class _NoMetrics:
    """Metric groups: a replay counts nothing."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return lambda *args, **kwargs: self


class ReplayJavaContext:
    """The Java runner context methods FlinkRunnerContext calls, for one
    replayed action. ``stubs``: function id (or ``function_id::digest``) ->
    a function of no arguments answering a call the recording lacks."""

    def __init__(self, journal: ReplayJournal, recorded_calls: List[Dict[str, Any]], action_name: str,
                 stubs: Mapping[str, Callable[[], Any]], short_term: ReplayMemory, sensory: ReplayMemory):
        self._journal = journal
        self._recorded_calls = recorded_calls
        self._action_name = action_name
        self._stubs = stubs
        self._short_term = short_term
        self._sensory = sensory
        self.stop: Optional[Stop] = None
        self.stubbed_calls: List[str] = []
        self.old_paths: List[str] = []
        self.outputs: List[str] = []
        self.replayed_calls = 0

    # -- durable calls -------------------------------------------------------------------------
    def matchNextOrClearSubsequentCallResult(self, function_id: str, args_digest: str) -> Any:  # noqa: N802
        import cloudpickle

        answer = self._journal.match_next(function_id, args_digest)
        if answer["step"] == "hit":
            self.replayed_calls += 1
            slot = self._recorded_slot(answer["position"])
            return [True, _payload(slot.get("resultPayload")), _payload(slot.get("exceptionPayload"))]
        if answer["step"] == "diverged":
            self._diverged(answer["divergence"])
        stub = self._stubs.get(answer["callId"], self._stubs.get(function_id))
        if stub is None:
            self.stop = Stop("would-run", answer["position"], None, None, answer["callId"], args_digest)
            raise ReplayStop(f"the candidate would run call '{answer['callId']}' at position {answer['position']}, "
                             "which the recording does not have")
        self.stubbed_calls.append(answer["callId"])
        value = stub()
        self._journal.record(function_id, args_digest)
        return [True, cloudpickle.dumps(value), None]

    def getCurrentCallResultFields(self) -> Any:  # noqa: N802
        """The slot at the index, for a call with a reconciler: Flink Agents
        compares it with the call and then replays it (``matchNext...``) or
        asks to clear the journal and append a PENDING slot, where the
        replay asks the journal again (``appendPendingCall``)."""
        standing = self._journal.position()
        slot = standing["slot"]
        if slot is None:
            return None
        if slot["status"] == "PENDING":
            # Flink Agents would run the reconciler of a call whose slot is PENDING: never in a replay.
            self.stop = Stop("would-run", standing["position"], slot["id"], slot["status"], slot["id"], slot["argsDigest"])
            raise ReplayStop(f"the recording left call '{slot['id']}' at position {standing['position']} PENDING: "
                             "its reconciler would run")
        return [slot["functionId"], slot["argsDigest"], slot["status"], None, None]

    def clearCallResultsFromCurrentIndexAndPersist(self) -> None:  # noqa: N802
        pass  # the journal decides at appendPendingCall, which always follows

    def appendPendingCall(self, function_id: str, args_digest: str) -> None:  # noqa: N802
        """A call with a reconciler that would run: the journal says whether
        it diverges there or is new; either way its body never runs."""
        answer = self._journal.match_next(function_id, args_digest)
        if answer["step"] == "diverged":
            self._diverged(answer["divergence"])
        position = answer["position"]
        self.stop = Stop("would-run", position, None, None, answer["callId"], args_digest)
        raise ReplayStop(f"the candidate would run call '{self.stop.candidate_id}' (with a reconciler) at position {position}")

    def recordCallCompletion(self, *args: Any) -> None:  # noqa: N802
        raise AssertionError("a replay never runs a call, so it never records one")

    finalizeCurrentCall = recordCallCompletion

    def patched(self, change_id: str) -> bool:
        """``durable_journal.patched`` on a replay: the native journal answers."""
        answer = self._journal.patched(change_id)
        if not answer:
            self.old_paths.append(change_id)
        return answer

    def _diverged(self, divergence: Dict[str, Any]) -> None:
        recorded = divergence["recorded"]
        new_call = divergence["newCall"]
        self.stop = Stop("diverged", divergence["position"], recorded["functionId"], recorded.get("status"),
                         new_call["functionId"], new_call.get("argsDigest"))
        raise ReplayStop(self.stop.describe())

    def _recorded_slot(self, position: int) -> Dict[str, Any]:
        return self._recorded_calls[position]

    # -- everything else an action reaches ----------------------------------------------------
    def sendEventJson(self, event_json: str) -> None:  # noqa: N802
        self.outputs.append(event_json)

    def getShortTermMemory(self) -> Any:  # noqa: N802
        return self._short_term.view()

    def getSensoryMemory(self) -> Any:  # noqa: N802
        return self._sensory.view()

    def getActionName(self) -> str:  # noqa: N802
        return self._action_name

    def checkMailboxThread(self) -> None:  # noqa: N802
        pass

    def getActionMetricGroup(self) -> Any:  # noqa: N802
        return _NoMetrics()

    getAgentMetricGroup = getActionMetricGroup

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # Flink Agents main's execution reports (reportExecution*Json) and the like: a replay records nothing.
        if name.startswith("report"):
            return lambda *args, **kwargs: None
        raise AttributeError(f"a replay's runner context has no '{name}' (the action reached a part of Flink Agents "
                             "that a replay does not stand in for)")


def _payload(text: Optional[str]) -> Optional[bytes]:
    import base64

    return None if text is None else base64.b64decode(text)


def event_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
